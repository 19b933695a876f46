import { describe, expect, it } from 'vitest';
import { ShortenerError } from './provider.js';
import { apiBase, errorForStatus, mapLimited, retryAfterOf } from './shortener-http.js';

describe('retryAfterOf', () => {
  const now = Date.UTC(2026, 10, 30, 6, 0, 0);
  it('reads Retry-After in seconds or as an HTTP date', () => {
    expect(retryAfterOf({ 'retry-after': '17' }, now)).toBe(17);
    expect(retryAfterOf({ 'retry-after': new Date(now + 30_000).toUTCString() }, now)).toBe(30);
    expect(retryAfterOf({ 'retry-after': new Date(now - 30_000).toUTCString() }, now)).toBe(0);
  });
  it('falls back on a reset header: epoch seconds (X-RateLimit-Reset) or seconds left (RateLimit-Reset)', () => {
    expect(retryAfterOf({ 'x-ratelimit-reset': String(now / 1000 + 55) }, now)).toBe(55);
    expect(retryAfterOf({ 'ratelimit-reset': '12' }, now)).toBe(12);
    expect(retryAfterOf({}, now)).toBeUndefined();
    expect(retryAfterOf({ 'retry-after': 'soon' }, now)).toBeUndefined();
  });
});

describe('errorForStatus', () => {
  const res = (status: number, headers: Record<string, string> = {}) => ({ status, headers, body: null });
  it('maps each status to the kind of failure it is', () => {
    expect(errorForStatus('P', res(401), 'no').kind).toBe('auth');
    expect(errorForStatus('P', res(403), 'no').kind).toBe('auth');
    expect(errorForStatus('P', res(400), 'bad').kind).toBe('rejected');
    expect(errorForStatus('P', res(409), 'taken').kind).toBe('rejected');
    expect(errorForStatus('P', res(422), 'invalid').message).toBe('P refused the request (422): invalid');
    expect(errorForStatus('P', res(502), '').kind).toBe('unavailable');
    const limited = errorForStatus('P', res(429, { 'retry-after': '9' }), 'slow down');
    expect([limited.kind, limited.retryAfter]).toEqual(['unavailable', 9]);
  });
});

describe('apiBase', () => {
  it('uses the public API without apiUrl, trusted', () => {
    expect(apiBase('P', null, 'https://api.p.example')).toEqual({ base: 'https://api.p.example', untrustedHost: false });
    expect(apiBase('P', ' ', 'https://api.p.example').untrustedHost).toBe(false);
  });
  it("takes the organisation's URL as untrusted, without trailing slashes", () => {
    expect(apiBase('P', 'https://k.example.org/base//', 'x')).toEqual({ base: 'https://k.example.org/base', untrustedHost: true });
  });
  it('refuses what is not a plain http(s) URL', () => {
    for (const bad of ['k.example.org', 'ftp://k.example.org', 'https://a:b@k.example.org', 'https://k.example.org/?x=1', 'https://k.example.org/#x']) {
      expect(() => apiBase('P', bad, 'x'), bad).toThrow(ShortenerError);
    }
  });
});

describe('mapLimited', () => {
  it('keeps the order and never runs more than the limit at once', async () => {
    let running = 0;
    let most = 0;
    const out = await mapLimited([5, 1, 4, 2, 3, 0], 3, async (n) => {
      running++;
      most = Math.max(most, running);
      await new Promise((r) => setTimeout(r, n * 3));
      running--;
      return n * 10;
    });
    expect(out).toEqual([50, 10, 40, 20, 30, 0]);
    expect(most).toBe(3);
  });
  it('stops taking new items after a failure', async () => {
    const seen: number[] = [];
    await expect(
      mapLimited([1, 2, 3, 4, 5, 6], 2, async (n) => {
        seen.push(n);
        if (n === 1) throw new Error('boom');
        await new Promise((r) => setTimeout(r, 20));
      }),
    ).rejects.toThrow('boom');
    await new Promise((r) => setTimeout(r, 60));
    expect(seen).toEqual([1, 2]);
  });
});
