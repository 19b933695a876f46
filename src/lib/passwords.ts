import { hash, verify } from '@node-rs/argon2';

// Algorithm.Argon2id of the binding (a const enum, which this build cannot import)
const ARGON2ID = 2;

/**
 * Password hashing: argon2id with the library's defaults (19 MiB, 2 passes, 1 lane: the OWASP
 * minimum for argon2id), stored as a PHC string that carries its own parameters, so raising
 * them later keeps old hashes verifiable.
 */
export function hashPassword(password: string): Promise<string> {
  return hash(password, { algorithm: ARGON2ID });
}

export async function verifyPassword(stored: string, password: string): Promise<boolean> {
  try {
    return await verify(stored, password);
  } catch {
    return false;
  }
}

let dummy: Promise<string> | undefined;

/**
 * Spends the time one verification costs, for an account that does not exist, so the answer's
 * timing does not tell whether an email address has an account.
 */
export async function verifyNothing(password: string): Promise<false> {
  dummy ??= hashPassword('tidings-no-such-account');
  await verifyPassword(await dummy, password);
  return false;
}

/** The rules a new password must meet (NIST 800-63B: length, not composition). */
export const PASSWORD_MIN_LENGTH = 10;
export const PASSWORD_MAX_LENGTH = 256;
