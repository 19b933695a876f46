import { Readable } from 'node:stream';
import { Agent, request } from 'undici';
import { beforeAll, describe, expect, it } from 'vitest';
import { createChannel } from '../../test/factories.js';
import { call, expectError, useTestApp } from '../../test/helpers.js';
import { multipart } from '../../test/media.js';
import { RawConnection, type RawResponse, type RawResult } from '../../test/raw-http.js';
import { listen } from '../../test/wire.js';

/**
 * What no request may do, whatever the route (HOUSE-STYLE "Edges"): wedge a kept-alive
 * connection, store text PostgreSQL cannot hold, overflow a recursive check with deep nesting,
 * or get an answer outside the one error shape.
 */

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');
const BOUNDARY = 'edge-boundary';

/** The head of a multipart upload whose file part is `size` bytes starting with `start`. */
function uploadRequest(apiKey: string, start: Buffer, size: number, filename = 'big.png') {
  const partHead = Buffer.from(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${BOUNDARY}--\r\n`);
  const file = Buffer.concat([start, Buffer.alloc(size - start.length, 7)]);
  const body = Buffer.concat([partHead, file, tail]);
  const head =
    `POST /public/v1/upload HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${apiKey}\r\n` +
    `Content-Type: multipart/form-data; boundary=${BOUNDARY}\r\nContent-Length: ${body.length}\r\n\r\n`;
  return { head, body };
}

/** The next response on the connection; a close or a timeout fails the test at once. */
async function answer(conn: RawConnection): Promise<RawResponse> {
  const r: RawResult = await conn.next(5000);
  if (typeof r === 'string') throw new Error(`no answer: ${r}`);
  return r;
}
const json = (r: RawResponse) => JSON.parse(r.body.toString('utf8')) as Record<string, unknown>;

const listRequest = (apiKey: string) => `GET /public/v1/integrations HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${apiKey}\r\n\r\n`;

describe('edges', () => {
  let port: number;
  let origin: string;

  const { t, orgs: { acme } } = useTestApp({ env: { MEDIA_MAX_IMAGE_BYTES: '20000', MEDIA_MAX_VIDEO_BYTES: '40000', MEDIA_MAX_AUDIO_BYTES: '40000' } }, 'Acme');
  beforeAll(async () => {
    ({ port, origin } = await listen(t.app));
  });

  describe('a refusal sent before the body was read never wedges the connection', () => {
    const cases: [string, () => { head: string; body: Buffer }, number, string][] = [
      ['an image over its cap', () => uploadRequest(acme.apiKey, PNG, 2_000_000), 413, 'PAYLOAD_TOO_LARGE'],
      ['a type that is not accepted', () => uploadRequest(acme.apiKey, Buffer.from('%PDF-1.7\n'), 2_000_000, 'doc.pdf'), 400, 'VALIDATION_FAILED'],
      ['no credential', () => uploadRequest('', PNG, 2_000_000), 401, 'AUTH_MISSING'],
    ];

    it.each(cases)('%s: answered with Connection: close, and the connection closes', async (_name, build, status, code) => {
      const { head, body } = build();
      const conn = await RawConnection.open(port);
      await conn.write(head);
      await conn.write(body.subarray(0, 64 * 1024));
      const res = await answer(conn);
      expect({ status: res.status, code: json(res).code, connection: res.headers.connection }).toEqual({ status, code, connection: 'close' });
      // The client may go on sending what it had started; the server reads it and closes.
      await conn.write(body.subarray(64 * 1024));
      expect(await conn.serverCloses(5000)).toBe(true);
      conn.destroy();
    });

    it('a keep-alive client (undici, as SDKs use) gets the refusal, and its next request is answered at once', async () => {
      const agent = new Agent({ connections: 1, pipelining: 1, keepAliveTimeout: 60_000, headersTimeout: 5000, bodyTimeout: 5000 });
      try {
        const { body } = uploadRequest(acme.apiKey, PNG, 2_000_000);
        const refused = await request(`${origin}/public/v1/upload`, {
          method: 'POST',
          dispatcher: agent,
          headers: { authorization: acme.apiKey, 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
          // a stream, as an SDK uploading a file sends it
          body: Readable.from((function* () {
            for (let i = 0; i < body.length; i += 16 * 1024) yield body.subarray(i, i + 16 * 1024);
          })()),
        });
        expect(refused.statusCode).toBe(413);
        expect(((await refused.body.json()) as { code: string }).code).toBe('PAYLOAD_TOO_LARGE');
        for (let i = 0; i < 3; i++) {
          const next = await request(`${origin}/public/v1/integrations`, { dispatcher: agent, headers: { authorization: acme.apiKey } });
          expect(next.statusCode).toBe(200);
          expect(await next.body.json()).toEqual([]);
        }
      } finally {
        await agent.close();
      }
    });

    it('an answered request whose body was read keeps its connection alive', async () => {
      const conn = await RawConnection.open(port);
      const payload = JSON.stringify({ name: 'kept alive' });
      await conn.write(
        `POST /public/v1/groups HTTP/1.1\r\nHost: x\r\nAuthorization: ${acme.apiKey}\r\nContent-Type: application/json\r\nContent-Length: ${payload.length}\r\n\r\n${payload}`,
      );
      await conn.write(listRequest(acme.apiKey));
      const created = await answer(conn);
      const listed = await answer(conn);
      expect([created.status, listed.status]).toEqual([201, 200]);
      expect(created.headers.connection).toBe('keep-alive');
      expect(conn.closedByServer).toBe(false);
      conn.destroy();
    });
  });

  describe('text PostgreSQL cannot store is refused before any SQL, naming the field', () => {
    it('NUL in a client group name (create and rename) and a channel name → 400 naming the field', async () => {
      const created = expectError(await call(t.app, acme.apiKey, { method: 'POST', url: '/public/v1/groups', payload: { name: 'a\u0000b' } }), 400, 'VALIDATION_FAILED');
      expect(created.fields).toEqual([{ path: 'name', message: 'Must not contain the NUL character (\\u0000)' }]);
      const group = (await call(t.app, acme.apiKey, { method: 'POST', url: '/public/v1/groups', payload: { name: 'Clients' } })).json<{ id: string }>();
      const renamed = await call(t.app, acme.apiKey, { method: 'PUT', url: `/public/v1/groups/${group.id}`, payload: { name: '\u0000' } });
      expect(expectError(renamed, 400, 'VALIDATION_FAILED').fields!.map((f) => f.path)).toEqual(['name']);
      const channel = await createChannel(t, acme, 'telegram');
      const channelRenamed = await call(t.app, acme.apiKey, { method: 'PUT', url: `/public/v1/integrations/${channel.id}`, payload: { name: 'News\u0000' } });
      expect(expectError(channelRenamed, 400, 'VALIDATION_FAILED').fields!.map((f) => f.path)).toEqual(['name']);
      // nothing was changed
      const groups = (await call(t.app, acme.apiKey, { method: 'GET', url: '/public/v1/groups' })).json<{ name: string }[]>();
      expect(groups.map((g) => g.name)).toContain('Clients');
    });

    it('lone surrogates and NUL in keys, nested values and the query are refused too; in a path parameter they are simply not found', async () => {
      const lone = expectError(await call(t.app, acme.apiKey, { method: 'POST', url: '/public/v1/groups', payload: '{"name":"\\ud800x"}', headers: { 'content-type': 'application/json' } }), 400, 'VALIDATION_FAILED');
      expect(lone.fields![0]!.message).toMatch(/lone UTF-16 surrogate/);
      const key = expectError(await call(t.app, acme.apiKey, { method: 'POST', url: '/public/v1/groups', payload: { name: 'x', ['k\u0000']: 1 } }), 400, 'VALIDATION_FAILED');
      expect(key.fields![0]!.path).toBe('k\u0000');
      const query = expectError(await call(t.app, acme.apiKey, { method: 'GET', url: '/public/v1/integrations?customer=%00' }), 400, 'VALIDATION_FAILED');
      expect(query.fields!.map((f) => f.path)).toEqual(['customer']);
      expectError(await call(t.app, acme.apiKey, { method: 'PUT', url: '/public/v1/groups/%00', payload: { name: 'x' } }), 404, 'NOT_FOUND');
      expectError(await call(t.app, acme.apiKey, { method: 'GET', url: '/public/v1/find-slot/a%00b' }), 404, 'NOT_FOUND');
    });

    it('NUL in a multipart file name → 400 naming `file`, nothing stored', async () => {
      const body = multipart([{ field: 'file', filename: 'a\u0000b.png', type: 'image/png', data: PNG }]);
      const res = await call(t.app, acme.apiKey, { method: 'POST', url: '/public/v1/upload', ...body });
      expect(expectError(res, 400, 'VALIDATION_FAILED').fields!.map((f) => f.path)).toEqual(['file']);
      const media = (await call(t.app, acme.apiKey, { method: 'GET', url: '/public/v1/media' })).json<{ media: unknown[] }>();
      expect(media.media).toEqual([]);
    });
  });

  it('a multipart body the parser cannot read (no boundary, not multipart at all) → 400 naming `file`, never a 500', async () => {
    for (const payload of ['------x--\r\n', '{}', '']) {
      const res = await call(t.app, acme.apiKey, { method: 'POST', url: '/public/v1/upload', payload, headers: { 'content-type': 'multipart/form-data' } });
      expect(expectError(res, 400, 'VALIDATION_FAILED').fields!.map((f) => f.path), payload).toEqual(['file']);
    }
  });

  describe('JSON nesting is bounded when the body is parsed', () => {
    const deepObject = (levels: number) => '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);
    const postBody = (settings: string) =>
      `{"type":"draft","date":"2030-01-01T00:00:00Z","posts":[{"integration":{"id":"x"},"value":[{"content":"a"}],"settings":${settings}}]}`;

    it('settings 10,000 levels deep in POST /posts and PUT /posts/{id}/settings → 400 naming where, never a 500', async () => {
      const res = await call(t.app, acme.apiKey, { method: 'POST', url: '/public/v1/posts', payload: postBody(deepObject(10_000)), headers: { 'content-type': 'application/json' } });
      const body = expectError(res, 400, 'BODY_TOO_DEEP');
      expect(body.message).toMatch(/^posts\.0\.settings\.a\.a\.a\.a\.a\.…: the JSON body is nested more than 64 levels deep$/);
      expect(body.fields![0]!.path).toBe(['posts', '0', 'settings', ...Array(61).fill('a')].join('.'));
      const channel = await createChannel(t, acme, 'telegram');
      const draft = await call(t.app, acme.apiKey, {
        method: 'POST',
        url: '/public/v1/posts',
        payload: { type: 'draft', date: '2030-01-01T00:00:00Z', posts: [{ integration: { id: channel.id }, value: [{ content: 'hi' }] }] },
      });
      const postId = draft.json<{ postId: string }[]>()[0]!.postId;
      const put = await call(t.app, acme.apiKey, { method: 'PUT', url: `/public/v1/posts/${postId}/settings`, payload: `{"settings":${deepObject(10_000)}}`, headers: { 'content-type': 'application/json' } });
      expectError(put, 400, 'BODY_TOO_DEEP');
    });

    it('the limit is 64 levels: 64 parse, 65 do not; arrays count as levels too', async () => {
      // {"settings": …} is one level, so 63 more fit
      const at = await call(t.app, acme.apiKey, { method: 'POST', url: '/public/v1/groups', payload: `{"name":"x","deep":${deepObject(63)}}`, headers: { 'content-type': 'application/json' } });
      expect(at.statusCode).toBe(201);
      const over = await call(t.app, acme.apiKey, { method: 'POST', url: '/public/v1/groups', payload: `{"name":"x","deep":${deepObject(64)}}`, headers: { 'content-type': 'application/json' } });
      expectError(over, 400, 'BODY_TOO_DEEP');
      const arrays = await call(t.app, acme.apiKey, { method: 'POST', url: '/public/v1/groups', payload: `[${'['.repeat(100_000)}`, headers: { 'content-type': 'application/json' } });
      expect(expectError(arrays, 400, 'BODY_TOO_DEEP').fields![0]!.path).toBe(Array(64).fill('0').join('.'));
      // brackets inside strings are text, not nesting
      const text = await call(t.app, acme.apiKey, { method: 'POST', url: '/public/v1/groups', payload: { name: '[{'.repeat(90) } });
      expect(text.statusCode).toBe(201);
    });
  });

  describe('framework refusals answer in the one error shape', () => {
    it('an over-long path parameter → 414, malformed percent-encoding → 400, with the request id', async () => {
      const long = await call(t.app, acme.apiKey, { method: 'GET', url: `/public/v1/posts/${'a'.repeat(5000)}` });
      const body = expectError(long, 414, 'URI_TOO_LONG');
      expect(body.message).not.toContain('aaaa');
      expectError(await call(t.app, acme.apiKey, { method: 'GET', url: '/public/v1/posts/%E0%A4%A' }), 400, 'MALFORMED_URL');
      expectError(await call(t.app, acme.apiKey, { method: 'GET', url: '/public/v1/po%ZZsts' }), 400, 'MALFORMED_URL');
    });

    it('headers too large → 431, a request that is not HTTP or has no Host → 400, in the error shape', async () => {
      for (const [raw, status, code] of [
        [`GET /public/v1/integrations HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(100_000)}\r\n\r\n`, 431, 'HEADERS_TOO_LARGE'],
        [`GET /public/v1/integrations HTTP/1.1\r\nHost: x\r\n${Array.from({ length: 3000 }, (_, i) => `X-H${i}: v`).join('\r\n')}\r\n\r\n`, 431, 'HEADERS_TOO_LARGE'],
        ['GARBAGE\r\n\r\n', 400, 'BAD_REQUEST'],
        [`GET /public/v1/groups HTTP/1.1\r\nAuthorization: ${acme.apiKey}\r\n\r\n`, 400, 'BAD_REQUEST'],
      ] as const) {
        const conn = await RawConnection.open(port);
        await conn.write(raw);
        const res = await answer(conn);
        const body = json(res);
        expect({ status: res.status, code: body.code, statusCode: body.statusCode }).toEqual({ status, code, statusCode: status });
        expect(body.requestId).toBe(res.headers['x-request-id']);
        expect(await conn.serverCloses(5000)).toBe(true);
      }
    });
  });

  describe('clients set up for a self-hosted Postiz', () => {
    it('reach the same API under /api/public/v1 (only the host changes)', async () => {
      const listed = await call(t.app, acme.apiKey, { method: 'GET', url: '/api/public/v1/integrations' });
      expect(listed.statusCode).toBe(200);
      const created = await call(t.app, acme.apiKey, { method: 'POST', url: '/api/public/v1/groups', payload: { name: 'via /api' } });
      expect(created.statusCode).toBe(201);
      expect((await call(t.app, acme.apiKey, { method: 'GET', url: '/api/public/v1/is-connected?x=1' })).json()).toEqual({ connected: expect.any(Boolean) });
      expect((await t.app.inject({ method: 'GET', url: '/api/public/v1/openapi.json' })).json<{ openapi: string }>().openapi).toBe('3.1.0');
      expectError(await call(t.app, undefined, { method: 'GET', url: '/api/public/v1/integrations' }), 401, 'AUTH_MISSING');
      expectError(await call(t.app, acme.apiKey, { method: 'GET', url: '/api/public/v1x/integrations' }), 404, 'ROUTE_NOT_FOUND');
      expectError(await call(t.app, acme.apiKey, { method: 'GET', url: '/api/integrations' }), 404, 'ROUTE_NOT_FOUND');
    });
  });
});
