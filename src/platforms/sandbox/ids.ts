import { createHash } from 'node:crypto';

/** Deterministic ids for a sandbox account key: the same key gives the same platform ids after a restart. */
export function digest(key: string, salt = ''): Buffer {
  return createHash('sha256').update(`${salt}:${key}`).digest();
}

/** A positive integer of up to `digits` decimal digits (at least 10^(digits-1)), from `key`. */
export function numericId(key: string, digits = 10, salt = ''): string {
  const n = digest(key, salt).readBigUInt64BE(0);
  const floor = 10n ** BigInt(digits - 1);
  return String(floor + (n % (9n * floor)));
}

/** `length` lowercase hex characters from `key`. */
export function hexId(key: string, length = 16, salt = ''): string {
  return digest(key, salt).toString('hex').slice(0, length);
}

/** `length` base62 characters from `key` (tokens, secrets of sandbox accounts). */
export function tokenOf(key: string, length = 32, salt = ''): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  const bytes = Buffer.concat([digest(key, salt), digest(key, `${salt}+`)]);
  let out = '';
  for (let i = 0; i < length; i++) out += alphabet[bytes[i % bytes.length]! % 62];
  return out;
}
