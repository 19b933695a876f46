import { createHash, randomBytes } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Random base62 string with `length` characters (rejection sampling: no modulo bias). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const b of randomBytes(length * 2)) {
      if (b < 248 && out.length < length) out += ALPHABET[b % 62];
    }
  }
  return out;
}

/**
 * Credentials carry ≥ 238 bits of randomness, so a plain SHA-256 is enough to store them: a slow
 * password hash would only add latency to every request without adding safety.
 */
export function hashCredential(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

export const API_KEY_PREFIX = 'tdk_';
export const OAUTH_TOKEN_PREFIX = 'pos_';

/** A new API key: `tdk_` + 40 base62 characters (never starts with `pos_`). */
export function generateApiKey(): string {
  return API_KEY_PREFIX + randomBase62(40);
}

/** The visible part kept to tell keys apart: the scheme prefix and 6 characters. */
export function visiblePrefix(value: string): string {
  return value.slice(0, 10);
}
