import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * A preview link's password: scrypt (N 2^15, r 8, p 1: about 32 MiB and tens of milliseconds) with
 * a random 16-byte salt, stored as `scrypt$N$r$p$<salt>$<hash>` (base64url), so raising the cost
 * later keeps old hashes verifiable. Unlike tokens, people choose these: a fast hash would let a
 * leaked row be guessed offline.
 */
const PARAMS = { N: 2 ** 15, r: 8, p: 1 };
const KEY_LENGTH = 32;

function derive(password: string, salt: Buffer, opts: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    // maxmem: 128 × N × r bytes, with room to spare
    scrypt(password.normalize('NFC'), salt, KEY_LENGTH, { ...opts, maxmem: 256 * (opts.N ?? PARAMS.N) * (opts.r ?? PARAMS.r) }, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

export async function hashPreviewPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, PARAMS);
  return ['scrypt', PARAMS.N, PARAMS.r, PARAMS.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** Constant-time comparison of the derived key; a malformed stored value never matches. */
export async function verifyPreviewPassword(stored: string, password: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const params = { N: Number(n), r: Number(r), p: Number(p) };
  if (expected.length !== KEY_LENGTH || !Object.values(params).every((v) => Number.isInteger(v) && v > 0)) return false;
  const key = await derive(password, Buffer.from(salt, 'base64url'), params);
  return timingSafeEqual(key, expected);
}
