import { loadConfig } from '../config.js';
import { databaseTarget, migrate } from './open-database.js';

// `npm run migrate`: applies pending migrations to the configured database and says which.
const applied = await migrate(databaseTarget(loadConfig()));
console.log(applied.length ? `Applied: ${applied.join(', ')}` : 'Already up to date.');
