import type { Database, Queryable } from '../../src/db/database.js';

/** A database that counts the statements run through it (transactions included), for N+1 tests. */
export interface CountingDatabase extends Database {
  readonly statementCount: number;
}

export function countingDatabase(db: Database): CountingDatabase {
  let count = 0;
  const wrap = <T extends Queryable>(target: T): T =>
    new Proxy(target, {
      get(object, property, receiver) {
        const value = Reflect.get(object, property, receiver);
        if (property === 'statementCount') return count;
        if (property === 'all' || property === 'one' || property === 'run' || property === 'write') {
          return (...args: unknown[]) => {
            count += 1;
            return (value as (...a: unknown[]) => unknown).apply(object, args);
          };
        }
        if (property === 'transaction') {
          return (work: (tx: Queryable) => Promise<unknown>) =>
            (value as Queryable['transaction']).call(object, (tx) => work(wrap(tx)));
        }
        return typeof value === 'function' ? value.bind(object) : value;
      },
    });
  return wrap(db) as CountingDatabase;
}
