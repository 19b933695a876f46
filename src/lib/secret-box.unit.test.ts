import { describe, expect, it } from 'vitest';
import { createSecretBox } from './secret-box.js';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);

describe('secret box', () => {
  it('round-trips and never stores the plaintext', () => {
    const box = createSecretBox(A);
    const sealed = box.seal('{"token":"secret-token"}');
    expect(sealed).not.toContain('secret-token');
    expect(sealed.startsWith(`v1.${box.keyId}.`)).toBe(true);
    expect(box.open(sealed)).toBe('{"token":"secret-token"}');
    expect(box.seal('x')).not.toBe(box.seal('x'));
  });

  it('rejects tampered envelopes', () => {
    const box = createSecretBox(A);
    const parts = box.seal('hello').split('.');
    parts[4] = Buffer.from('jello').toString('base64url');
    expect(() => box.open(parts.join('.'))).toThrow();
  });

  it('opens values sealed with a previous key after rotation', () => {
    const old = createSecretBox(A).seal('hello');
    const rotated = createSecretBox(B, [A]);
    expect(rotated.open(old)).toBe('hello');
    expect(rotated.seal('x').split('.')[1]).toBe(rotated.keyId);
    expect(() => createSecretBox(B).open(old)).toThrow(/CREDENTIALS_SECRET_PREVIOUS/);
  });
});
