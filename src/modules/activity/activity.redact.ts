/** Anywhere in a key: its value is, or may be, a credential. */
const SECRET_PART = /secret|token|passw(or)?d|passphrase|credential|authori[sz]ation|apikey|cookie/i;
/** A word of a key (camelCase, snake_case, kebab-case): keys and their hashes, signatures, private material. */
const SECRET_WORDS = new Set(['key', 'keys', 'hash', 'hashes', 'signature', 'private', 'pwd', 'pin', 'otp', 'csrf', 'session']);

/**
 * Keys whose values are, or may be, credentials: secrets, tokens, passwords, keys and their hashes,
 * cookies, authorisation headers (`secret`, `webhookSecret`, `api_key`, `keyHash`, …); a `key`
 * inside a word (`keyword`, `monkey`) is not one.
 */
function isSecretKey(key: string): boolean {
  if (SECRET_PART.test(key)) return true;
  const words = key.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase().split(/[^a-z0-9]+/);
  return words.some((w) => SECRET_WORDS.has(w));
}

/** Values that are credentials whatever their key: API keys, OAuth tokens, webhook secrets, bearer values. */
const SECRET_VALUE = /^(tdk_|pos_|whsec_|bearer\s)/i;

const MAX_DEPTH = 6;

function clean(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return SECRET_VALUE.test(value.trim()) ? undefined : value;
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return undefined;
  if (Array.isArray(value)) return value.map((v) => clean(v, depth + 1)).filter((v) => v !== undefined);
  if (value instanceof Date) return value.toISOString();
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (isSecretKey(k)) continue;
    const c = clean(v, depth + 1);
    if (c !== undefined) out[k] = c;
  }
  return out;
}

/** The details of an entry without anything that looks like secret material (nested objects too). */
export function redact(details: Record<string, unknown> | undefined): Record<string, unknown> {
  if (!details) return {};
  return clean(details, 0) as Record<string, unknown>;
}
