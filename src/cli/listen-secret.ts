/**
 * The signing secret of `payments listen`: made once and kept beside the dev API key
 * (`$DATA_DIR/listen-webhook-secret`), so that a handler configured with it keeps working across
 * restarts of `listen`, and `payments listen --print-secret` can hand it to a script.
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomBase62 } from '../domain/ids.js';

/** Where the secret is kept. */
export function listenSecretPath(env: NodeJS.ProcessEnv = process.env): string {
  return path.resolve(env.DATA_DIR || './data', 'listen-webhook-secret');
}

/** The kept secret, made (as the server makes an endpoint's: `whsec_` and 32 base62) and saved on first use. */
export function listenSecret(): string {
  const file = listenSecretPath();
  try {
    const kept = fs.readFileSync(file, 'utf8').trim();
    if (/^whsec_[A-Za-z0-9]{32}$/.test(kept)) return kept;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const secret = `whsec_${randomBase62(32)}`;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  // Readable by its owner only, like the dev API key beside it.
  fs.writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  return secret;
}
