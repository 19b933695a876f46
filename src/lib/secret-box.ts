import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * AES-256-GCM envelope for stored platform credentials: `v1.<keyId>.<iv>.<tag>.<ciphertext>`
 * (base64url parts). The key id lets the secret be rotated: new values are sealed with the
 * current key, values sealed with a previous key still open while it is listed.
 */
export interface SecretBox {
  seal(plaintext: string): string;
  open(envelope: string): string;
  readonly keyId: string;
}

interface Key {
  id: string;
  key: Buffer;
}

function deriveKey(secret: string): Key {
  // The secret may be any long string; SHA-256 gives a uniform 32-byte key from it.
  const key = createHash('sha256').update(`tidings-credentials:${secret}`).digest();
  const id = createHash('sha256').update(key).digest('hex').slice(0, 8);
  return { id, key };
}

export function createSecretBox(current: string, previous: string[] = []): SecretBox {
  const primary = deriveKey(current);
  const keys = new Map<string, Buffer>([[primary.id, primary.key]]);
  for (const p of previous) {
    const k = deriveKey(p);
    if (!keys.has(k.id)) keys.set(k.id, k.key);
  }
  return {
    keyId: primary.id,
    seal(plaintext) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', primary.key, iv);
      cipher.setAAD(Buffer.from(primary.id));
      const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      const tag = cipher.getAuthTag();
      return ['v1', primary.id, iv.toString('base64url'), tag.toString('base64url'), ct.toString('base64url')].join('.');
    },
    open(envelope) {
      const [version, keyId, iv, tag, ct] = envelope.split('.');
      if (version !== 'v1' || !keyId || !iv || !tag || ct === undefined) {
        throw new Error('Not a sealed credential envelope');
      }
      const key = keys.get(keyId);
      if (!key) throw new Error(`Credential sealed with unknown key id ${keyId}: add its secret to CREDENTIALS_SECRET_PREVIOUS`);
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAAD(Buffer.from(keyId));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString('utf8');
    },
  };
}
