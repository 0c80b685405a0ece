import fs from 'node:fs';
import path from 'node:path';
import type { Config } from './config.js';
import type { DatabaseTarget } from './db/knex.js';
import { describeTarget } from './db/open-database.js';
import { describeReadReplica } from './db/read-replica.js';
import type { Logger } from './logging/logger.js';

/**
 * Where the API key of a local start is: the file the first start saved it in, the environment, or
 * nowhere (accounts are then the operator's to make).
 */
function keyLocation(config: Config): string {
  if (config.bootstrapApiKey) return 'BOOTSTRAP_API_KEY';
  const file = path.join(config.dataDir, 'dev-api-key');
  return fs.existsSync(file) ? file : 'none saved here: make an account with POST /admin/accounts';
}

/**
 * The one line a person reads once the API listens, on every start: where it is, the database in
 * use and the read replica that lists and events are read from (`DATABASE_READ_URL`, by host and
 * port only), how many API processes serve it (`WEB_CONCURRENCY`, see cluster.ts), where the API
 * key is, and the pages to open (the key itself is printed only on the start that creates it, see
 * bootstrap.ts).
 */
export function logStartSummary(logger: Logger, config: Config, target: DatabaseTarget, url: string, apiProcesses = 1): void {
  const pages = { docs: `${url}/docs`, graphql: `${url}/graphql`, dashboard: `${url}/dashboard` };
  const replica = config.databaseReadUrl && describeReadReplica(config.databaseReadUrl);
  const database = describeTarget(target);
  const reads = replica ? ` (lists and events read from the replica at ${replica})` : '';
  const apiKey = keyLocation(config);
  const serving = apiProcesses === 1 ? '1 API process' : `${apiProcesses} API processes`;
  logger.info(
    { url, database, ...(replica ? { read_replica: replica } : {}), api_processes: apiProcesses, api_key: apiKey, ...pages },
    `Ready at ${url} on ${database}${reads}, ${serving}. API key: ${apiKey}. Reference ${pages.docs}, GraphQL ${pages.graphql}, dashboard ${pages.dashboard}`,
  );
}
