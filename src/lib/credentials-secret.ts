import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Embedded mode: the secret that encrypts stored platform credentials is generated on first
 * start and kept in DATA_DIR (mode 0600), so a zero-config install still encrypts at rest.
 * Losing this file means losing access to stored credentials (channels must be reconnected).
 */
export function loadOrCreateEmbeddedSecret(dataDir: string): string {
  const path = join(dataDir, 'credentials.secret');
  if (existsSync(path)) {
    const value = readFileSync(path, 'utf8').trim();
    if (value.length >= 32) return value;
    throw new Error(`${path} is damaged (shorter than 32 characters); restore it from a backup or set CREDENTIALS_SECRET`);
  }
  const value = randomBytes(48).toString('base64url');
  writeFileSync(path, `${value}\n`, { mode: 0o600, flag: 'wx' });
  chmodSync(path, 0o600);
  return value;
}
