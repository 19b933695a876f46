import { describe, expect, it } from 'vitest';
import { findUnstorableText, unstorableReason } from './storable-text.js';

describe('text PostgreSQL cannot store', () => {
  it('is the NUL character and lone surrogates; paired surrogates (emoji) are fine', () => {
    expect(unstorableReason('a\u0000b')).toMatch(/NUL/);
    expect(unstorableReason('\ud800')).toMatch(/lone UTF-16 surrogate/);
    expect(unstorableReason('x\udc00')).toMatch(/lone UTF-16 surrogate/);
    expect(unstorableReason('\udc00\ud800')).toMatch(/lone UTF-16 surrogate/);
    expect(unstorableReason('😀 é 日本')).toBeUndefined();
  });

  it('is found anywhere in a value, keys included, with the path to it', () => {
    const value = { posts: [{ value: [{ content: 'ok' }, { content: 'a\u0000' }] }], ['k\u0000']: 1, tags: ['\ud800'] };
    expect(findUnstorableText(value)).toEqual([
      { path: ['k\u0000'], message: 'Key: must not contain the NUL character (\\u0000)' },
      { path: ['posts', 0, 'value', 1, 'content'], message: 'Must not contain the NUL character (\\u0000)' },
      { path: ['tags', 0], message: 'Must be valid Unicode text (it contains a lone UTF-16 surrogate)' },
    ]);
    expect(findUnstorableText('\u0000')).toEqual([{ path: [], message: expect.stringMatching(/NUL/) }]);
    expect(findUnstorableText({ a: [1, true, null, 'fine'] })).toEqual([]);
  });

  it('walks any depth without recursion and stops at the limit', () => {
    let deep: unknown = 'bottom\u0000';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(findUnstorableText(deep)[0]!.path).toHaveLength(100_000);
    expect(findUnstorableText(Array(50).fill('\u0000'), 3)).toHaveLength(3);
  });
});
