import { readFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { errorShapeProblems } from './checks.js';
import { countAnswer } from './client.js';
import { FUZZ_RUNS, FUZZ_SEED, startFuzzEnvironment, summaryLine } from './environment.js';
import { describeRaw, RawConnection, requestHead, type RawResult } from '../raw-http.js';

/**
 * The wire-level cases, on bare sockets against the real server: a refused upload whose client
 * keeps sending on a kept-alive connection, bodies cut short, header floods, malformed request
 * lines and paths. Whatever arrives, the server answers in the error shape or closes cleanly, and
 * never leaves a client waiting (every wait here has a limit, and running into it fails).
 */

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'media');
const png = await readFile(join(FIXTURES, 'photo-48x64.png'));
const mp4 = await readFile(join(FIXTURES, 'h264-aac-faststart.mp4'));
// A small image cap, so a refused upload has far more body left unread than it had read. The
// video cap stays above the bodies sent: it is also the multipart parser's own file size limit,
// past which the parser itself would read and drop the rest of the file.
const IMAGE_CAP = 4096;
const VIDEO_CAP = 8 * 1024 * 1024;
const env = await startFuzzEnvironment({ png, env: { MEDIA_MAX_IMAGE_BYTES: String(IMAGE_CAP), MEDIA_MAX_VIDEO_BYTES: String(VIDEO_CAP), MEDIA_MAX_AUDIO_BYTES: String(VIDEO_CAP) } });
const { port } = env.t.app.server.address() as AddressInfo;
const org = await env.t.createOrg('Wire');
/** How long an answer may take before the test calls it a hang. */
const WAIT_MS = 5000;
/** How long the server may keep a connection its client has closed. */
const RELEASE_MS = 3000;

afterAll(async () => {
  console.log(summaryLine('wire', env.tally));
  await env.close();
});

function count(r: RawResult) {
  countAnswer(env.tally, typeof r === 'string' ? 'no answer' : r.status);
}

/** What is wrong with an answer to a request the server should refuse or serve (empty: nothing). */
function answerProblems(r: RawResult): string[] {
  if (r === 'timeout') return [`no answer and no close within ${WAIT_MS} ms (a hang)`];
  if (r === 'closed') return [];
  if (r.status >= 500 || r.status === 0) return [`answered ${r.status || 'something that is not HTTP'}`];
  if (r.status >= 400) return errorShapeProblems(r.status, r.headers, r.body.toString('utf8')).map((p) => `${r.status}: ${p}`);
  return [];
}

/** One request on a fresh connection: the first answer (or close, or timeout). */
async function once(bytes: string | Buffer, opts: { halfClose?: boolean } = {}): Promise<RawResult> {
  const conn = await RawConnection.open(port);
  try {
    await conn.write(bytes);
    if (opts.halfClose) conn.end();
    const r = await conn.next(WAIT_MS);
    count(r);
    return r;
  } finally {
    conn.destroy();
  }
}

/** Connections the server holds open right now. */
const serverConnections = () => new Promise<number>((resolve, reject) => env.t.app.server.getConnections((err, n) => (err ? reject(err) : resolve(n))));

const BOUNDARY = 'wire-fuzz-boundary';
function multipartBody(filename: string, content: Buffer) {
  return Buffer.concat([
    Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: application/octet-stream\r\n\r\n`),
    content,
    Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
  ]);
}
const auth = (): [string, string] => ['Authorization', org.apiKey];
const host: [string, string] = ['Host', `127.0.0.1:${port}`];

describe('wire: a refused upload on a kept-alive connection', () => {
  const MiB = 1024 * 1024;
  const cases = [
    { name: 'an image over the cap (413)', status: 413, file: Buffer.concat([png, Buffer.alloc(2 * MiB)]), filename: 'big.png' },
    { name: 'a video over the cap (413)', status: 413, file: Buffer.concat([mp4, Buffer.alloc(9 * MiB)]), filename: 'big.mp4' },
    { name: 'a file of no media type (400)', status: 400, file: Buffer.from('plain text, not a picture\n'.repeat(80_000)), filename: 'notes.txt' },
  ];
  for (const c of cases.flatMap((x) => [{ ...x, order: 'send all, then read' as const }, { ...x, order: 'read the answer, then send the rest' as const }])) {
    it(`${c.name}, ${c.order}: the next request on the connection is answered, or the connection is closed`, async () => {
      const body = multipartBody(c.filename, c.file);
      const connectionsBefore = await serverConnections();
      const conn = await RawConnection.open(port);
      try {
        const head = requestHead('POST /public/v1/upload HTTP/1.1', [host, auth(), ['Content-Type', `multipart/form-data; boundary=${BOUNDARY}`], ['Content-Length', String(body.length)], ['Connection', 'keep-alive']]);
        // The client sends the whole body without looking at an early answer, as most do.
        let stalled = false;
        await conn.write(head);
        let early: RawResult | undefined;
        let at = 0;
        if (c.order === 'read the answer, then send the rest') {
          // Until the refusal arrives; a pause; then the rest of the body.
          while (at < body.length && early === undefined) {
            if (!(await conn.write(body.subarray(at, at + 64 * 1024), 3000))) break;
            at += 64 * 1024;
            const r = await conn.next(0);
            if (r !== 'timeout') early = r;
          }
          await new Promise((resolve) => setTimeout(resolve, 500));
        }
        for (; at < body.length; at += 64 * 1024) {
          if (!(await conn.write(body.subarray(at, at + 64 * 1024), 3000))) {
            stalled = !conn.closedByServer;
            break;
          }
        }
        const first = early ?? (await conn.next(WAIT_MS));
        count(first);
        const closesAfterFirst = typeof first !== 'string' && first.headers.connection?.toLowerCase() === 'close';
        let second: RawResult = 'closed';
        if (!conn.closedByServer) {
          await conn.write(requestHead('GET /public/v1/groups HTTP/1.1', [host, auth(), ['Connection', 'keep-alive']]));
          second = await conn.next(WAIT_MS);
          count(second);
        }
        const closed = closesAfterFirst ? await conn.serverCloses(WAIT_MS) : conn.closedByServer;
        const report = [
          `POST /public/v1/upload, ${body.length} bytes of multipart (${c.filename}), Connection: keep-alive; then GET /public/v1/groups on the same connection`,
          `  sent ${conn.bytesWritten} bytes${stalled ? ' (the server stopped reading the body)' : ''}`,
          `  first answer: ${describeRaw(first)}`,
          `  second answer: ${describeRaw(second)}`,
          `  server closed the connection: ${closed}`,
        ].join('\n');
        expect.soft(typeof first === 'string' ? first : first.status, report).toBe(c.status);
        expect.soft(answerProblems(first), report).toEqual([]);
        // Either way is fine for a client; hanging until the keep-alive timeout is not.
        const answeredNext = typeof second !== 'string' && second.status === 200;
        const closedCleanly = closesAfterFirst && closed;
        expect.soft(answeredNext || closedCleanly, `neither answered the next request nor said Connection: close and closed\n${report}`).toBe(true);
      } finally {
        conn.destroy();
      }
      // And once the client has gone, the server lets go of the connection too.
      const deadline = Date.now() + RELEASE_MS;
      while ((await serverConnections()) > connectionsBefore && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      expect.soft(await serverConnections(), `the server still holds the connection ${RELEASE_MS} ms after the client closed it`).toBe(connectionsBefore);
    });
  }
});

describe('wire: bodies cut short, then the client half-closes', () => {
  const cases: { name: string; bytes: () => Buffer }[] = [
    {
      name: 'JSON shorter than its Content-Length',
      bytes: () => Buffer.from(requestHead('POST /public/v1/groups HTTP/1.1', [host, auth(), ['Content-Type', 'application/json'], ['Content-Length', '200']]) + '{"name":"cut sh'),
    },
    {
      name: 'multipart shorter than its Content-Length',
      bytes: () => {
        const body = multipartBody('photo.png', png).subarray(0, 150);
        return Buffer.concat([Buffer.from(requestHead('POST /public/v1/upload HTTP/1.1', [host, auth(), ['Content-Type', `multipart/form-data; boundary=${BOUNDARY}`], ['Content-Length', '50000']])), body]);
      },
    },
    {
      name: 'a chunked JSON body without its last chunk',
      bytes: () => Buffer.from(requestHead('POST /public/v1/groups HTTP/1.1', [host, auth(), ['Content-Type', 'application/json'], ['Transfer-Encoding', 'chunked']]) + '5\r\n{"nam\r\n'),
    },
    {
      name: 'headers announcing a body that never comes',
      bytes: () => Buffer.from(requestHead('PUT /public/v1/posts/00000000-0000-4000-8000-000000000000/status HTTP/1.1', [host, auth(), ['Content-Type', 'application/json'], ['Content-Length', '1000']])),
    },
    {
      name: 'a request head cut in the middle of a header',
      bytes: () => Buffer.from(`GET /public/v1/groups HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthoriz`),
    },
  ];
  for (const c of cases) {
    it(`${c.name}: no 5xx, no hang, the connection is closed`, async () => {
      const conn = await RawConnection.open(port);
      try {
        await conn.write(c.bytes());
        conn.end();
        const r = await conn.next(WAIT_MS);
        count(r);
        const closed = await conn.serverCloses(WAIT_MS);
        const report = `${c.name}: answer ${describeRaw(r)}; server closed: ${closed}`;
        expect(answerProblems(r), report).toEqual([]);
        expect(closed, report).toBe(true);
      } finally {
        conn.destroy();
      }
    });
  }
});

describe('wire: header floods', () => {
  const manyHeaders = (n: number): [string, string][] => Array.from({ length: n }, (_, i) => [`X-Fuzz-${i}`, `value-${i}`]);
  const cases: { name: string; headers: () => [string, string][]; servable: boolean }[] = [
    { name: '300 small headers (under the header size limit)', headers: () => manyHeaders(300), servable: true },
    { name: '2000 small headers', headers: () => manyHeaders(2000), servable: false },
    { name: 'one header of 17 KB', headers: () => [['X-Big', 'a'.repeat(17 * 1024)]], servable: false },
    { name: 'one header of 100 KB', headers: () => [['X-Big', 'a'.repeat(100 * 1024)]], servable: false },
    { name: 'an Authorization header of 100 KB', headers: () => [['Authorization', 'k'.repeat(100 * 1024)]], servable: false },
  ];
  for (const c of cases) {
    it(`${c.name}: answered (431 or 400 in the error shape) or closed, never a hang`, async () => {
      const r = await once(requestHead('GET /public/v1/groups HTTP/1.1', [host, auth(), ...c.headers()]));
      const report = `${c.name}: ${describeRaw(r)}`;
      expect(answerProblems(r), report).toEqual([]);
      if (c.servable) expect(typeof r === 'string' ? r : r.status, report).toBe(200);
      else if (typeof r !== 'string') expect([400, 431], report).toContain(r.status);
      const health = await once(requestHead('GET /healthz HTTP/1.1', [host]));
      expect(typeof health === 'string' ? health : health.status, `after ${c.name}`).toBe(200);
    });
  }
});

describe('wire: malformed request lines and paths', () => {
  const lines: [string, string][] = [
    ['not HTTP at all', 'GARBAGE\r\n\r\n'],
    ['a method alone', 'GET\r\n\r\n'],
    ['binary bytes', '\u0000\u0001\u0002\u0003\r\n\r\n'],
    ['HTTP/9.9', `GET /public/v1/groups HTTP/9.9\r\nHost: x\r\n\r\n`],
    ['a space in the path', `GET /public/v1/gro ups HTTP/1.1\r\nHost: x\r\n\r\n`],
    ['NUL in the path', `GET /public/v1/groups\u0000 HTTP/1.1\r\nHost: x\r\n\r\n`],
    ['a lower-case method', `get /public/v1/groups HTTP/1.1\r\nHost: x\r\n\r\n`],
    ['no Host header', `GET /public/v1/groups HTTP/1.1\r\n\r\n`],
    ['an asterisk target', `GET * HTTP/1.1\r\nHost: x\r\n\r\n`],
    ['two Content-Lengths that disagree', `POST /public/v1/groups HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}`],
    ['Content-Length and Transfer-Encoding together', `POST /public/v1/groups HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`],
    ['a negative Content-Length', `POST /public/v1/groups HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: -1\r\n\r\n`],
    ['a header line without a colon', `GET /public/v1/groups HTTP/1.1\r\nHost: x\r\nthis is not a header\r\n\r\n`],
  ];
  for (const [name, bytes] of lines) {
    it(`${name}: a 4xx in the error shape, or a clean close`, async () => {
      const r = await once(bytes);
      expect(answerProblems(r), `${JSON.stringify(bytes.slice(0, 120))} → ${describeRaw(r)}`).toEqual([]);
    });
  }

  const paths: [string, string][] = [
    ['truncated percent-encoding', '/public/v1/posts/%E0%A4%A'],
    ['a lone %', '/public/v1/posts/%'],
    ['percent-encoded NUL', '/public/v1/posts/%00'],
    ['invalid UTF-8', '/public/v1/posts/%FF%FE'],
    ['a path parameter of 1001 characters', `/public/v1/posts/${'a'.repeat(1001)}`],
    ['a path parameter of 5000 characters', `/public/v1/posts/${'a'.repeat(5000)}`],
    ['a path of 60 KB', `/public/v1/${'a/'.repeat(30_000)}`],
    ['dot segments', '/public/v1/../../etc/passwd'],
    ['an encoded slash in a parameter', '/public/v1/posts/a%2Fb'],
    ['malformed percent-encoding in the query', '/public/v1/groups?a=%E0%A4%A'],
  ];
  for (const [name, path] of paths) {
    it(`${name}: a 4xx in the error shape`, async () => {
      const r = await once(requestHead(`GET ${path} HTTP/1.1`, [host, auth()]));
      const report = `GET ${path.length > 100 ? `${path.slice(0, 100)}… (${path.length} characters)` : path} → ${describeRaw(r)}`;
      expect(r, report).not.toBe('closed');
      expect(answerProblems(r), report).toEqual([]);
    });
  }

  it('generated request lines: a 4xx in the error shape, a success, or a clean close; never a 5xx or a hang', { timeout: 120_000 }, async () => {
    const method = fc.oneof(fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS', 'TRACE', 'CONNECT', 'BREW'), fc.string({ unit: 'grapheme-ascii', minLength: 0, maxLength: 8 }));
    const target = fc.oneof(
      fc.constantFrom('/public/v1/groups', '/public/v1/posts/%', '/healthz', '/', '*', 'http://example.invalid/public/v1/groups', '//public/v1//groups', '/public/v1/groups?%'),
      fc.string({ unit: 'binary-ascii', maxLength: 40 }).map((s) => `/public/v1/${s}`),
    );
    const version = fc.constantFrom('HTTP/1.1', 'HTTP/1.0', 'HTTP/2.0', 'HTTP/1.1x', 'HTTP/', '', 'http/1.1');
    await fc.assert(
      fc.asyncProperty(method, target, version, fc.boolean(), async (m, tgt, v, withAuth) => {
        const bytes = `${m} ${tgt} ${v}\r\nHost: x\r\n${withAuth ? `Authorization: ${org.apiKey}\r\n` : ''}Connection: close\r\n\r\n`;
        const r = await once(bytes);
        const problems = answerProblems(r);
        if (problems.length > 0) throw new Error(`${JSON.stringify(bytes.slice(0, 200))} → ${describeRaw(r)}: ${problems.join('; ')}`);
      }),
      { seed: FUZZ_SEED, numRuns: Math.max(20, Math.round(FUZZ_RUNS / 2)) },
    );
  });
});

describe('wire: afterwards', () => {
  it('the server still answers', async () => {
    const r = await once(requestHead('GET /healthz HTTP/1.1', [host]));
    expect(typeof r === 'string' ? r : r.status).toBe(200);
  });
});
