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

/** Sandbox keys (issue 28) show what they are: `tdk_test_…`. */
export const SANDBOX_KEY_PREFIX = 'tdk_test_';

/** A new API key: `tdk_` + 40 base62 characters (never starts with `pos_`); a sandbox key `tdk_test_` + 40. */
export function generateApiKey(opts: { sandbox?: boolean } = {}): string {
  return (opts.sandbox ? SANDBOX_KEY_PREFIX : API_KEY_PREFIX) + randomBase62(40);
}

/** The visible part kept to tell keys apart: the scheme prefix and 6 characters. */
export function visiblePrefix(value: string): string {
  return value.slice(0, value.startsWith(SANDBOX_KEY_PREFIX) ? SANDBOX_KEY_PREFIX.length + 6 : 10);
}

/** The OAuth server's secrets (issue 15). Each ≥ 190 bits of randomness, stored as SHA-256 only. */
export const newAccessToken = () => OAUTH_TOKEN_PREFIX + randomBase62(40);
export const newRefreshToken = () => 'por_' + randomBase62(40);
export const newAuthorizationCode = () => randomBase62(32);
export const newClientId = () => 'tdc_' + randomBase62(24);
export const newClientSecret = () => 'tdcs_' + randomBase62(40);
/** Sessions, invitations, password resets, device codes: opaque random tokens. */
export const newOpaqueToken = () => randomBase62(43);

/** RFC 8628 §6.1: consonants only (no vowels, so no words; no 0/O/1/I look-alikes): 20^8 ≈ 2^34.6. */
const USER_CODE_ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ';

/** A user code `XXXX-XXXX`, as the Postiz CLI shows it. */
export function newUserCode(): string {
  let out = '';
  while (out.length < 8) {
    for (const b of randomBytes(16)) {
      // 240 = 12 × 20: values at or above it would bias the choice
      if (b < 240 && out.length < 8) out += USER_CODE_ALPHABET[b % 20];
    }
  }
  return `${out.slice(0, 4)}-${out.slice(4)}`;
}

/** What a person typed as a user code, in its stored form (upper-case, dash restored), or undefined. */
export function normalizeUserCode(typed: string): string | undefined {
  const letters = typed.toUpperCase().replace(/[^A-Z]/g, '');
  if (letters.length !== 8 || [...letters].some((c) => !USER_CODE_ALPHABET.includes(c))) return undefined;
  return `${letters.slice(0, 4)}-${letters.slice(4)}`;
}
