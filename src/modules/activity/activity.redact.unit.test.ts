import { describe, expect, it } from 'vitest';
import { redact } from './activity.redact.js';

describe('redact', () => {
  it('drops keys that look like secret, token, password or key material, nested ones too', () => {
    const out = redact({
      name: 'Zapier',
      secret: 'whsec_abc',
      webhookSecret: 'x',
      accessToken: 'x',
      refresh_token: 'x',
      password: 'x',
      api_key: 'x',
      apiKey: 'x',
      keyHash: 'x',
      key: 'x',
      privateKey: 'x',
      Authorization: 'x',
      nested: { clientSecret: 'x', url: 'https://example.com/hook', list: [{ token: 'x', n: 1 }] },
      keyword: 'kept',
      monkey: 'kept',
      events: ['post.published'],
    });
    expect(out).toEqual({
      name: 'Zapier',
      nested: { url: 'https://example.com/hook', list: [{ n: 1 }] },
      keyword: 'kept',
      monkey: 'kept',
      events: ['post.published'],
    });
  });

  it('drops values that are credentials whatever their key', () => {
    expect(redact({ note: 'tdk_0123', other: 'pos_x', hook: 'whsec_y', h: 'Bearer z', ok: 'fine', n: 3, b: false, z: null })).toEqual({ ok: 'fine', n: 3, b: false, z: null });
  });

  it('is empty for no details', () => {
    expect(redact(undefined)).toEqual({});
  });
});
