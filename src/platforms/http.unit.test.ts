import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPlatformHttp } from './http.js';
import { describeNetworkFailure, errorFromResponse, extractMessage, retryAfterSeconds } from './http-errors.js';
import { PlatformError } from './platform.js';

let server: Server;
let origin: string;
const seen: { method: string; url: string; body: string; auth?: string }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, body, auth: req.headers.authorization });
      if (req.url === '/slow') return void setTimeout(() => res.end('late'), 2000);
      if (req.url === '/redirect-private') {
        res.writeHead(302, { location: 'http://127.0.0.1:1/secret' });
        return void res.end();
      }
      if (req.url === '/limited') {
        res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '17' });
        return void res.end(JSON.stringify({ error: 'RateLimitExceeded', message: 'Slow down' }));
      }
      res.writeHead(200, { 'content-type': 'application/json', 'x-echo': 'yes' });
      res.end(JSON.stringify({ ok: true, got: body ? (JSON.parse(body) as unknown) : null }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('platform HTTP client', () => {
  it('rewrites platform origins (PLATFORM_ORIGINS) for calls and authorisation URLs, and sends JSON', async () => {
    const http = createPlatformHttp({ origins: new Map([['https://api.example.com', origin]]), allowPrivateTargets: false, timeoutMs: 5000 });
    expect(http.rewriteUrl('https://api.example.com/oauth/authorize?x=1')).toBe(`${origin}/oauth/authorize?x=1`);
    expect(http.rewriteUrl('https://other.example.com/a')).toBe('https://other.example.com/a');
    const res = await http.request({ method: 'POST', url: 'https://api.example.com/v1/things', body: { a: 1 }, headers: { authorization: 'Bearer t' } });
    expect(res.status).toBe(200);
    expect(res.headers['x-echo']).toBe('yes');
    expect(res.body).toEqual({ ok: true, got: { a: 1 } });
    expect(seen.at(-1)).toMatchObject({ method: 'POST', url: '/v1/things', auth: 'Bearer t' });
    await http.close();
  });

  it('refuses user-supplied hosts on private addresses unless allowed', async () => {
    const guarded = createPlatformHttp({ origins: new Map(), allowPrivateTargets: false, timeoutMs: 5000 });
    const e1 = await guarded.request({ method: 'GET', url: `${origin}/x`, untrustedHost: true }).catch((e: unknown) => e);
    expect(e1).toBeInstanceOf(PlatformError);
    expect((e1 as PlatformError).kind).toBe('rejected');
    expect((e1 as PlatformError).message).toMatch(/private or reserved/);
    const e2 = await guarded.request({ method: 'GET', url: `http://localhost:${new URL(origin).port}/x`, untrustedHost: true }).catch((e: unknown) => e);
    expect((e2 as PlatformError).message).toMatch(/localhost resolves to .* private or reserved/);
    const open = createPlatformHttp({ origins: new Map(), allowPrivateTargets: true, timeoutMs: 5000 });
    expect((await open.request({ method: 'GET', url: `${origin}/x`, untrustedHost: true })).status).toBe(200);
    // A redirect from an allowed host to a private one is re-checked.
    const viaOperator = createPlatformHttp({ origins: new Map([['https://instance.example', origin]]), allowPrivateTargets: false, timeoutMs: 5000 });
    const e3 = await viaOperator.request({ method: 'GET', url: 'https://instance.example/redirect-private', untrustedHost: true }).catch((e: unknown) => e);
    expect((e3 as PlatformError).message).toMatch(/127\.0\.0\.1.*private or reserved/);
    await Promise.all([guarded.close(), open.close(), viaOperator.close()]);
  });

  it('gives WebSocket targets the same origin rewrite and guard (socketTarget)', async () => {
    const http = createPlatformHttp({ origins: new Map([['wss://relay.example', 'ws://127.0.0.1:7000']]), allowPrivateTargets: false, timeoutMs: 5000 });
    // Mapped by the operator: rewritten and trusted.
    expect(http.socketTarget('wss://relay.example', { untrustedHost: true })).toEqual({ url: 'ws://127.0.0.1:7000/' });
    expect(http.socketTarget('wss://relay.example/sub?x=1')).toEqual({ url: 'ws://127.0.0.1:7000/sub?x=1' });
    // A user-typed host: a literal private address is refused at once, a name gets the guarded lookup.
    const refused = (() => {
      try {
        return http.socketTarget('wss://10.0.0.8:443', { untrustedHost: true });
      } catch (e) {
        return e;
      }
    })() as PlatformError;
    expect({ kind: refused.kind, message: refused.message }).toEqual({ kind: 'rejected', message: '10.0.0.8 is a private or reserved address, which is not allowed' });
    const named = http.socketTarget('wss://nos.lol', { untrustedHost: true });
    expect(named.url).toBe('wss://nos.lol/');
    expect(typeof named.lookup).toBe('function');
    const blocked = await new Promise<Error | null>((r) => named.lookup!('localhost', {}, (err) => r(err)));
    expect(blocked?.message).toMatch(/localhost resolves to .* private or reserved/);
    expect(() => http.socketTarget('https://relay.example', { untrustedHost: true })).toThrow(/Only ws\(s\) URLs/);
    // ALLOW_PRIVATE_TARGETS lifts the guard.
    const open = createPlatformHttp({ origins: new Map(), allowPrivateTargets: true, timeoutMs: 5000 });
    expect(open.socketTarget('ws://10.0.0.8:7777', { untrustedHost: true })).toEqual({ url: 'ws://10.0.0.8:7777/' });
    await Promise.all([http.close(), open.close()]);
  });

  it('times out as transient with an unknown outcome for writes', async () => {
    const http = createPlatformHttp({ origins: new Map(), allowPrivateTargets: true, timeoutMs: 200 });
    const e = (await http.request({ method: 'POST', url: `${origin}/slow`, body: { a: 1 } }).catch((x: unknown) => x)) as PlatformError;
    expect({ kind: e.kind, unknown: e.details.outcomeUnknown }).toEqual({ kind: 'transient', unknown: true });
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const freePort = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const refused = (await http.request({ method: 'POST', url: `http://127.0.0.1:${freePort}/x`, body: {} }).catch((x: unknown) => x)) as PlatformError;
    expect({ kind: refused.kind, unknown: refused.details.outcomeUnknown }).toEqual({ kind: 'transient', unknown: false });
    await http.close();
  });

  it('classifies answers', async () => {
    const http = createPlatformHttp({ origins: new Map(), allowPrivateTargets: true, timeoutMs: 5000 });
    const limited = errorFromResponse(await http.request({ method: 'GET', url: `${origin}/limited` }))!;
    expect({ kind: limited.kind, retry: limited.details.retryAfterSeconds, message: limited.message }).toEqual({ kind: 'rate_limited', retry: 17, message: 'Slow down' });
    expect(errorFromResponse({ status: 401, headers: {}, body: { title: 'Unauthorized' } })!.kind).toBe('auth_expired');
    expect(errorFromResponse({ status: 503, headers: {}, body: '' })!.kind).toBe('transient');
    expect(errorFromResponse({ status: 403, headers: {}, body: { detail: 'duplicate content' } })!.message).toBe('duplicate content');
    expect(errorFromResponse({ status: 200, headers: {}, body: {} })).toBeUndefined();
    expect(extractMessage({ error: { message: 'Meta says no', code: 190 } })).toBe('Meta says no');
    expect(extractMessage({ errors: [{ message: 'GraphQL no' }] })).toBe('GraphQL no');
    const now = Date.UTC(2026, 0, 1);
    expect(retryAfterSeconds({ 'x-rate-limit-reset': String(now / 1000 + 90) }, now)).toBe(90);
    expect(retryAfterSeconds({ 'retry-after': new Date(now + 30_000).toUTCString() }, now)).toBe(30);
    expect(retryAfterSeconds({ 'ratelimit-reset': '12' }, now)).toBe(12);
    await http.close();
  });
});

describe('network failures in words', () => {
  /** The shape undici's fetch rejects with: TypeError("fetch failed") caused by the system error. */
  const fetchFailed = (code: string, message = `${code} something`) => new TypeError('fetch failed', { cause: Object.assign(new Error(message), { code }) });

  it.each([
    ['ENOTFOUND', 'Could not find the host api.example.com (DNS lookup failed: no such host)'],
    ['EAI_AGAIN', 'Could not look up the host api.example.com (DNS lookup failed; the name server did not answer)'],
    ['ECONNREFUSED', 'api.example.com refused the connection (nothing is listening there)'],
    ['ECONNRESET', 'The connection to api.example.com was closed unexpectedly'],
    ['UND_ERR_SOCKET', 'The connection to api.example.com was closed unexpectedly'],
    ['EHOSTUNREACH', 'api.example.com cannot be reached from this server (no network route to it)'],
    ['ETIMEDOUT', 'Connecting to api.example.com timed out'],
    ['UND_ERR_CONNECT_TIMEOUT', 'Connecting to api.example.com timed out'],
    ['UND_ERR_HEADERS_TIMEOUT', 'api.example.com stopped answering (timed out)'],
    ['CERT_HAS_EXPIRED', 'The secure connection to api.example.com failed: its certificate has expired'],
    ['DEPTH_ZERO_SELF_SIGNED_CERT', 'The secure connection to api.example.com failed: its certificate is self-signed'],
    ['ERR_TLS_CERT_ALTNAME_INVALID', 'The secure connection to api.example.com failed: its certificate is for another name'],
    ['ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE', 'The secure connection to api.example.com failed: the TLS handshake failed'],
  ])('%s → words naming the host, the code kept apart', (code, words) => {
    const failure = describeNetworkFailure(fetchFailed(code), 'api.example.com');
    expect(failure).toEqual({ message: words, code });
    expect(failure.message).not.toContain(code);
  });

  it('finds the code deep in the chain, and says what it can of an unknown failure', () => {
    const deep = new TypeError('fetch failed', { cause: new Error('connect failed', { cause: Object.assign(new Error('getaddrinfo ENOTFOUND x.example'), { code: 'ENOTFOUND' }) }) });
    expect(describeNetworkFailure(deep, 'x.example').message).toBe('Could not find the host x.example (DNS lookup failed: no such host)');
    expect(describeNetworkFailure(new TypeError('fetch failed', { cause: new Error('something odd') }), 'x.example')).toEqual({ message: 'The request to x.example failed: something odd' });
    expect(describeNetworkFailure(new TypeError('fetch failed'), 'x.example')).toEqual({ message: 'The request to x.example failed' });
  });

  it('the client throws them: a host that does not exist, a port nobody listens on, a mapped origin named', async () => {
    // the system error stays the cause, for the logs
    const codeOf = (e: Error) => describeNetworkFailure(e.cause, 'x').code;
    const http = createPlatformHttp({ origins: new Map([['https://api.platform.example', 'http://no-such-host.invalid']]), allowPrivateTargets: true, timeoutMs: 5000 });
    const missing = (await http.request({ method: 'POST', url: 'https://api.platform.example/send', body: {} }).catch((x: unknown) => x)) as PlatformError;
    expect({ kind: missing.kind, message: missing.message, code: codeOf(missing), unknown: missing.details.outcomeUnknown }).toEqual({
      kind: 'transient',
      message: 'Could not find the host no-such-host.invalid (DNS lookup failed: no such host); PLATFORM_ORIGINS sends api.platform.example there',
      code: 'ENOTFOUND',
      unknown: false,
    });
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const freePort = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const refused = (await http.request({ method: 'GET', url: `http://127.0.0.1:${freePort}/x` }).catch((x: unknown) => x)) as PlatformError;
    expect({ message: refused.message, code: codeOf(refused) }).toEqual({ message: `127.0.0.1:${freePort} refused the connection (nothing is listening there)`, code: 'ECONNREFUSED' });
    const slow = createPlatformHttp({ origins: new Map(), allowPrivateTargets: true, timeoutMs: 200 });
    const late = (await slow.request({ method: 'POST', url: `${origin}/slow`, body: {} }).catch((x: unknown) => x)) as PlatformError;
    expect(late.message).toBe(`${new URL(origin).host} did not answer in time (the POST request timed out)`);
    await Promise.all([http.close(), slow.close()]);
  });
});
