import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A small S3-compatible server for the storage tests (path-style addressing only), kept in memory.
 * It speaks the parts of the S3 REST API the media driver uses, with S3's XML error bodies:
 * PutObject, CreateMultipartUpload / UploadPart / CompleteMultipartUpload / AbortMultipartUpload,
 * ListParts, ListMultipartUploads, ListObjectsV2 (the three listings paged as S3 pages them, at most
 * `maxKeys` entries a page), GetObject (one `Range`: `a-b`, `a-`, `-n`), HeadObject,
 * DeleteObject. Every request must carry a valid AWS Signature V4 — the `Authorization` header or a
 * presigned query (whose expiry is checked) — whose signature is recomputed with the secret key;
 * a signed payload hash is checked against the body. Buckets marked `publicRead` also answer
 * anonymous GET/HEAD of objects (a public bucket behind `S3_PUBLIC_URL`).
 *
 * Why not s3rver: 3.7.1 answers AbortMultipartUpload with 405, does not implement
 * ListMultipartUploads, and reads `Range: bytes=-n` as `0-n` — exactly what the tests must check.
 */
export interface S3Simulator {
  /** `http://127.0.0.1:<port>` */
  readonly endpoint: string;
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  /** keys stored in `bucket` */
  keys(bucket: string): string[];
  /** multipart uploads started and neither completed nor aborted */
  openUploads(bucket: string): number;
  /** bytes of one object (undefined when absent) */
  object(bucket: string, key: string): Buffer | undefined;
  /** every request, `METHOD path?query` (without the SDK's `x-id`) */
  readonly log: string[];
  close(): Promise<void>;
}

interface StoredObject {
  body: Buffer;
  contentType: string | undefined;
  cacheControl: string | undefined;
  etag: string;
  lastModified: Date;
}

interface MultipartUpload {
  key: string;
  initiated: Date;
  contentType: string | undefined;
  cacheControl: string | undefined;
  parts: Map<number, { body: Buffer; etag: string; lastModified: Date }>;
}

interface Bucket {
  publicRead: boolean;
  objects: Map<string, StoredObject>;
  uploads: Map<string, MultipartUpload>;
}

class S3Error extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const xmlEscape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const md5 = (b: Buffer) => createHash('md5').update(b).digest('hex');
const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');
const hmac = (key: Buffer | string, data: string) => createHmac('sha256', key).update(data).digest();

/** RFC 3986 encoding as SigV4 wants it (encodeURIComponent leaves !'()* alone). */
const uriEncode = (s: string) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

function canonicalQuery(search: URLSearchParams, without?: string) {
  return [...search.entries()]
    .filter(([k]) => k !== without)
    .map(([k, v]) => [uriEncode(k), uriEncode(v)] as const)
    .sort(([a, av], [b, bv]) => (a < b ? -1 : a > b ? 1 : av < bv ? -1 : av > bv ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
}

function xml(res: ServerResponse, status: number, body: string) {
  const payload = Buffer.from(`<?xml version="1.0" encoding="UTF-8"?>\n${body}`);
  res.writeHead(status, { 'content-type': 'application/xml', 'content-length': String(payload.length) });
  res.end(payload);
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** The page a listing answers: entries after `after` (exclusive; from the start when -1), at most `max`. */
function page<T>(all: T[], after: number, max: number) {
  const items = all.slice(after + 1, after + 1 + max);
  return { items, truncated: after + 1 + max < all.length };
}

/** A listing's `max-keys`-style parameter: S3 answers at most 1000 (and at most `cap` here). */
function pageSize(q: URLSearchParams, name: string, cap: number) {
  const raw = q.get(name);
  const n = raw === null ? 1000 : Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new S3Error(400, 'InvalidArgument', `${name} must be a non-negative integer`);
  return Math.min(n, 1000, cap);
}

export async function startS3Simulator(opts: {
  buckets: { name: string; publicRead?: boolean }[];
  accessKeyId?: string;
  secretAccessKey?: string;
  /** the most entries one listing page holds (S3: 1000); lower to exercise a client's paging */
  maxKeys?: number;
  /** the server's time: `LastModified` of objects and parts, `Initiated` of multipart uploads */
  now?: () => Date;
}): Promise<S3Simulator> {
  const maxKeys = opts.maxKeys ?? 1000;
  const now = opts.now ?? (() => new Date());
  const accessKeyId = opts.accessKeyId ?? 'TIDINGSTESTKEY';
  const secretAccessKey = opts.secretAccessKey ?? 'tidings-test-secret-access-key';
  const buckets = new Map<string, Bucket>(opts.buckets.map((b) => [b.name, { publicRead: b.publicRead ?? false, objects: new Map(), uploads: new Map() }]));
  const log: string[] = [];

  /** Recomputes the SigV4 signature of the request (header or presigned query form). */
  function authenticate(req: IncomingMessage, url: URL, body: Buffer): 'signed' | 'anonymous' {
    const header = req.headers.authorization;
    const presigned = url.searchParams.get('X-Amz-Algorithm');
    let credential: string;
    let signedHeaders: string;
    let signature: string;
    let amzDate: string;
    let payloadHash: string;
    let query: string;
    if (header) {
      const m = /^AWS4-HMAC-SHA256 Credential=([^,]+), ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]{64})$/.exec(header);
      if (!m) throw new S3Error(400, 'AuthorizationHeaderMalformed', 'The authorization header is malformed');
      [, credential, signedHeaders, signature] = m as unknown as [string, string, string, string];
      amzDate = String(req.headers['x-amz-date'] ?? '');
      payloadHash = String(req.headers['x-amz-content-sha256'] ?? '');
      if (!payloadHash) throw new S3Error(400, 'InvalidRequest', 'Missing required header for this request: x-amz-content-sha256');
      if (/^[0-9a-f]{64}$/.test(payloadHash) && payloadHash !== sha256(body)) {
        throw new S3Error(400, 'XAmzContentSHA256Mismatch', 'The provided x-amz-content-sha256 header does not match what was computed.');
      }
      if (req.headers['content-encoding']?.includes('aws-chunked')) {
        throw new S3Error(501, 'NotImplemented', 'aws-chunked uploads (checksum trailers) are not supported by this server');
      }
      query = canonicalQuery(url.searchParams);
    } else if (presigned) {
      if (presigned !== 'AWS4-HMAC-SHA256') throw new S3Error(400, 'AuthorizationQueryParametersError', 'X-Amz-Algorithm only supports "AWS4-HMAC-SHA256"');
      credential = url.searchParams.get('X-Amz-Credential') ?? '';
      signedHeaders = url.searchParams.get('X-Amz-SignedHeaders') ?? '';
      signature = url.searchParams.get('X-Amz-Signature') ?? '';
      amzDate = url.searchParams.get('X-Amz-Date') ?? '';
      payloadHash = 'UNSIGNED-PAYLOAD';
      const expires = Number(url.searchParams.get('X-Amz-Expires'));
      const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(amzDate);
      if (!m || !Number.isInteger(expires)) throw new S3Error(400, 'AuthorizationQueryParametersError', 'X-Amz-Date and X-Amz-Expires are required');
      const signedAt = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]));
      if (Date.now() > signedAt + expires * 1000) throw new S3Error(403, 'AccessDenied', 'Request has expired');
      query = canonicalQuery(url.searchParams, 'X-Amz-Signature');
    } else {
      return 'anonymous';
    }
    const [keyId, date, region, service, terminator] = credential.split('/');
    if (keyId !== accessKeyId) throw new S3Error(403, 'InvalidAccessKeyId', 'The AWS Access Key Id you provided does not exist in our records.');
    if (!date || !region || service !== 's3' || terminator !== 'aws4_request' || !amzDate.startsWith(date)) {
      throw new S3Error(400, 'AuthorizationHeaderMalformed', `The credential scope is malformed: ${credential}`);
    }
    const names = signedHeaders.split(';');
    if (!names.includes('host')) throw new S3Error(400, 'AuthorizationHeaderMalformed', 'host must be a signed header');
    const canonicalHeaders = names
      .map((n) => {
        const v = req.headers[n];
        return `${n}:${(Array.isArray(v) ? v.join(',') : (v ?? '')).trim().replace(/\s+/g, ' ')}\n`;
      })
      .join('');
    const canonicalRequest = [req.method, url.pathname, query, canonicalHeaders, signedHeaders, payloadHash].join('\n');
    const scope = `${date}/${region}/s3/aws4_request`;
    const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonicalRequest)].join('\n');
    const signingKey = hmac(hmac(hmac(hmac(`AWS4${secretAccessKey}`, date), region), 's3'), 'aws4_request');
    const expected = createHmac('sha256', signingKey).update(stringToSign).digest();
    const given = Buffer.from(signature, 'hex');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      throw new S3Error(403, 'SignatureDoesNotMatch', 'The request signature we calculated does not match the signature you provided.');
    }
    return 'signed';
  }

  function sendObject(req: IncomingMessage, res: ServerResponse, obj: StoredObject) {
    const size = obj.body.length;
    const headers: Record<string, string> = {
      etag: `"${obj.etag}"`,
      'last-modified': obj.lastModified.toUTCString(),
      'accept-ranges': 'bytes',
      'content-type': obj.contentType ?? 'application/octet-stream',
    };
    if (obj.cacheControl) headers['cache-control'] = obj.cacheControl;
    let start = 0;
    let end = size - 1;
    let status = 200;
    const range = /^bytes=(\d*)-(\d*)$/.exec(String(req.headers.range ?? '').trim());
    if (range && (range[1] !== '' || range[2] !== '')) {
      if (range[1] === '') {
        start = Math.max(0, size - Number(range[2]));
      } else {
        start = Number(range[1]);
        if (range[2] !== '') end = Math.min(Number(range[2]), size - 1);
      }
      if (start >= size || start > end || (range[1] === '' && Number(range[2]) === 0)) {
        throw new S3Error(416, 'InvalidRange', 'The requested range is not satisfiable');
      }
      status = 206;
      headers['content-range'] = `bytes ${start}-${end}/${size}`;
    }
    headers['content-length'] = String(end - start + 1);
    res.writeHead(status, headers);
    res.end(req.method === 'HEAD' ? undefined : obj.body.subarray(start, end + 1));
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const logged = new URLSearchParams(url.searchParams);
    logged.delete('x-id'); // the SDK's name of the operation, not part of the S3 API
    log.push(`${req.method} ${url.pathname}${logged.size > 0 ? `?${logged.toString()}` : ''}`);
    const body = await readBody(req);
    const auth = authenticate(req, url, body);
    const [, bucketName = '', ...rest] = url.pathname.split('/');
    const key = decodeURIComponent(rest.join('/'));
    const bucket = buckets.get(bucketName);
    if (!bucket) throw new S3Error(404, 'NoSuchBucket', 'The specified bucket does not exist');
    const q = url.searchParams;
    if (auth === 'anonymous' && !(bucket.publicRead && key && (req.method === 'GET' || req.method === 'HEAD') && [...q.keys()].length === 0)) {
      throw new S3Error(403, 'AccessDenied', 'Access Denied');
    }

    if (!key) {
      if (req.method === 'GET' && q.has('uploads')) {
        // ordered by key, then by start; the markers name the last upload of the previous page
        const all = [...bucket.uploads.entries()]
          .map(([id, u]) => ({ id, ...u }))
          .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.initiated.getTime() - b.initiated.getTime() || (a.id < b.id ? -1 : 1)));
        const keyMarker = q.get('key-marker');
        const idMarker = q.get('upload-id-marker');
        let after = -1;
        if (keyMarker !== null) {
          const exact = idMarker ? all.findIndex((u) => u.key === keyMarker && u.id === idMarker) : -1;
          after = exact >= 0 ? exact : all.filter((u) => u.key <= keyMarker).length - 1;
        }
        const { items, truncated } = page(all, after, pageSize(q, 'max-uploads', maxKeys));
        const last = items.at(-1);
        const next = truncated && last ? `<NextKeyMarker>${xmlEscape(last.key)}</NextKeyMarker><NextUploadIdMarker>${last.id}</NextUploadIdMarker>` : '';
        const body = items.map((u) => `<Upload><Key>${xmlEscape(u.key)}</Key><UploadId>${u.id}</UploadId><Initiated>${u.initiated.toISOString()}</Initiated></Upload>`).join('');
        return xml(res, 200, `<ListMultipartUploadsResult><Bucket>${bucketName}</Bucket><IsTruncated>${truncated}</IsTruncated>${next}${body}</ListMultipartUploadsResult>`);
      }
      if (req.method === 'GET' && q.get('list-type') === '2') {
        const prefix = q.get('prefix') ?? '';
        const keys = [...bucket.objects.keys()].filter((k) => k.startsWith(prefix)).sort();
        // the continuation token is opaque to clients: here, the last key of the previous page
        const token = q.get('continuation-token');
        const from = token !== null ? Buffer.from(token, 'base64url').toString('utf8') : q.get('start-after');
        const { items, truncated } = page(keys, from === null ? -1 : keys.filter((k) => k <= from).length - 1, pageSize(q, 'max-keys', maxKeys));
        const next = truncated ? `<NextContinuationToken>${Buffer.from(items.at(-1)!).toString('base64url')}</NextContinuationToken>` : '';
        const body = items
          .map((k) => {
            const o = bucket.objects.get(k)!;
            return `<Contents><Key>${xmlEscape(k)}</Key><Size>${o.body.length}</Size><ETag>"${o.etag}"</ETag><LastModified>${o.lastModified.toISOString()}</LastModified></Contents>`;
          })
          .join('');
        return xml(
          res,
          200,
          `<ListBucketResult><Name>${bucketName}</Name><Prefix>${xmlEscape(prefix)}</Prefix><KeyCount>${items.length}</KeyCount><IsTruncated>${truncated}</IsTruncated>${next}${body}</ListBucketResult>`,
        );
      }
      throw new S3Error(501, 'NotImplemented', `${req.method} on a bucket with ${url.search || 'no query'} is not implemented`);
    }

    const uploadId = q.get('uploadId');
    const upload = uploadId ? bucket.uploads.get(uploadId) : undefined;
    if (uploadId && (!upload || upload.key !== key)) {
      throw new S3Error(404, 'NoSuchUpload', 'The specified upload does not exist.');
    }
    const contentType = req.headers['content-type'];
    const cacheControl = req.headers['cache-control'];

    switch (req.method) {
      case 'PUT': {
        if (upload) {
          const partNumber = Number(q.get('partNumber'));
          if (!Number.isInteger(partNumber) || partNumber < 1 || partNumber > 10_000) throw new S3Error(400, 'InvalidArgument', 'Part number must be an integer between 1 and 10000');
          const etag = md5(body);
          upload.parts.set(partNumber, { body, etag, lastModified: now() });
          res.writeHead(200, { etag: `"${etag}"`, 'content-length': '0' });
          return res.end();
        }
        const etag = md5(body);
        bucket.objects.set(key, { body, contentType, cacheControl, etag, lastModified: now() });
        res.writeHead(200, { etag: `"${etag}"`, 'content-length': '0' });
        return res.end();
      }
      case 'POST': {
        if (q.has('uploads')) {
          const id = randomBytes(16).toString('hex');
          bucket.uploads.set(id, { key, initiated: now(), contentType, cacheControl, parts: new Map() });
          return xml(res, 200, `<InitiateMultipartUploadResult><Bucket>${bucketName}</Bucket><Key>${xmlEscape(key)}</Key><UploadId>${id}</UploadId></InitiateMultipartUploadResult>`);
        }
        if (upload && uploadId) {
          const listed = [...body.toString('utf8').matchAll(/<Part>[\s\S]*?<\/Part>/g)].map(([p]) => ({
            number: Number(/<PartNumber>(\d+)<\/PartNumber>/.exec(p)?.[1]),
            etag: /<ETag>"?([^<"]*)"?<\/ETag>/.exec(p.replace(/&quot;/g, '"'))?.[1],
          }));
          if (listed.length === 0) throw new S3Error(400, 'MalformedXML', 'The XML you provided was not well-formed');
          const chunks: Buffer[] = [];
          let previous = 0;
          for (const [i, p] of listed.entries()) {
            const stored = upload.parts.get(p.number);
            if (!stored || stored.etag !== p.etag) throw new S3Error(400, 'InvalidPart', `Part ${p.number} was not uploaded or its ETag does not match`);
            if (p.number <= previous) throw new S3Error(400, 'InvalidPartOrder', 'The list of parts was not in ascending order');
            if (i < listed.length - 1 && stored.body.length < 5 * 1024 * 1024) throw new S3Error(400, 'EntityTooSmall', 'Your proposed upload is smaller than the minimum allowed object size.');
            previous = p.number;
            chunks.push(stored.body);
          }
          const all = Buffer.concat(chunks);
          const etag = `${md5(Buffer.concat(listed.map((p) => Buffer.from(upload.parts.get(p.number)!.etag, 'hex'))))}-${listed.length}`;
          // as S3 does: a multipart object's LastModified is when its upload started
          bucket.objects.set(key, { body: all, contentType: upload.contentType, cacheControl: upload.cacheControl, etag, lastModified: upload.initiated });
          bucket.uploads.delete(uploadId);
          return xml(res, 200, `<CompleteMultipartUploadResult><Bucket>${bucketName}</Bucket><Key>${xmlEscape(key)}</Key><ETag>"${etag}"</ETag></CompleteMultipartUploadResult>`);
        }
        throw new S3Error(501, 'NotImplemented', `POST ${url.search} is not implemented`);
      }
      case 'DELETE': {
        if (upload && uploadId) bucket.uploads.delete(uploadId);
        else bucket.objects.delete(key);
        res.writeHead(204);
        return res.end();
      }
      case 'GET':
      case 'HEAD': {
        if (upload && uploadId && req.method === 'GET') {
          const numbers = [...upload.parts.keys()].sort((a, b) => a - b);
          const marker = Number(q.get('part-number-marker') ?? 0);
          const { items, truncated } = page(numbers, numbers.filter((n) => n <= marker).length - 1, pageSize(q, 'max-parts', maxKeys));
          const next = truncated ? `<NextPartNumberMarker>${items.at(-1)}</NextPartNumberMarker>` : '';
          const body = items
            .map((n) => {
              const p = upload.parts.get(n)!;
              return `<Part><PartNumber>${n}</PartNumber><LastModified>${p.lastModified.toISOString()}</LastModified><ETag>"${p.etag}"</ETag><Size>${p.body.length}</Size></Part>`;
            })
            .join('');
          return xml(res, 200, `<ListPartsResult><Bucket>${bucketName}</Bucket><Key>${xmlEscape(key)}</Key><UploadId>${uploadId}</UploadId><IsTruncated>${truncated}</IsTruncated>${next}${body}</ListPartsResult>`);
        }
        const obj = bucket.objects.get(key);
        if (!obj) {
          if (req.method === 'HEAD') {
            res.writeHead(404);
            return res.end();
          }
          throw new S3Error(404, 'NoSuchKey', 'The specified key does not exist.');
        }
        return sendObject(req, res, obj);
      }
      default:
        throw new S3Error(405, 'MethodNotAllowed', 'The specified method is not allowed against this resource.');
    }
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      const e = err instanceof S3Error ? err : new S3Error(500, 'InternalError', err instanceof Error ? err.message : String(err));
      if (res.headersSent) return res.destroy();
      if (req.method === 'HEAD') {
        res.writeHead(e.status);
        return res.end();
      }
      xml(res, e.status, `<Error><Code>${e.code}</Code><Message>${xmlEscape(e.message)}</Message></Error>`);
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as AddressInfo;
  const bucketOf = (name: string) => {
    const b = buckets.get(name);
    if (!b) throw new Error(`no bucket ${name}`);
    return b;
  };

  return {
    endpoint: `http://127.0.0.1:${port}`,
    accessKeyId,
    secretAccessKey,
    log,
    keys: (name) => [...bucketOf(name).objects.keys()].sort(),
    openUploads: (name) => bucketOf(name).uploads.size,
    object: (name, key) => bucketOf(name).objects.get(key)?.body,
    close: () =>
      new Promise<void>((ok, fail) => {
        server.closeAllConnections();
        server.close((err) => (err ? fail(err) : ok()));
      }),
  };
}
