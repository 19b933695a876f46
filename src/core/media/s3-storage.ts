import { randomBytes } from 'node:crypto';
import { createWriteStream, openAsBlob } from 'node:fs';
import { link, mkdir, readdir, rename, rm, stat, utimes } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { pipeline, Transform, type Readable } from 'node:stream';
import { pipeline as pipelineAsync } from 'node:stream/promises';
import {
  AbortMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  ListPartsCommand,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { mimeTypeOfExtension } from '../../lib/media-types.js';
import { isMediaKey, newMediaKey, type ByteRange, type MediaStorage } from './storage.js';

export interface S3StorageOptions {
  bucket: string;
  region: string;
  /** absent: AWS itself; otherwise MinIO, R2, Ceph, … */
  endpoint?: string;
  forcePathStyle: boolean;
  /** absent: the AWS SDK's default credential chain (environment, profile, instance role) */
  credentials?: { accessKeyId: string; secretAccessKey: string };
  /** base URL of a public bucket or CDN (no trailing slash); objects are then fetched there directly */
  publicUrl?: string;
  /** lifetime of the presigned GetObject URLs that `GET /media/<key>` redirects to */
  presignSeconds: number;
  /** where `blob()` keeps downloaded copies (normally `DATA_DIR/cache/s3`) */
  cacheDir: string;
  /** cached copies unused for longer than this are removed (default one hour) */
  cacheTtlMs?: number;
  /** time source of the cache bookkeeping (tests) */
  now?: () => number;
}

/** lib-storage sends the stream in parts of this size; at most `QUEUE_SIZE` parts are in memory at once. */
const PART_SIZE = 8 * 1024 * 1024;
const QUEUE_SIZE = 2;
const SWEEP_INTERVAL_MS = 10 * 60_000;


const isNotFound = (err: unknown) => (err as { $metadata?: { httpStatusCode?: number } } | undefined)?.$metadata?.httpStatusCode === 404;

const abortError = () => Object.assign(new Error('The upload was aborted'), { name: 'AbortError' });

/** `bytes 0-9/1234` → 1234 */
function totalFromContentRange(value: string | undefined): number | undefined {
  const m = /\/(\d+)$/.exec(value ?? '');
  return m ? Number(m[1]) : undefined;
}

/**
 * Media in an S3-compatible bucket under the same keys as local storage. Many API and worker
 * processes can share one bucket; nothing is kept on local disk except `blob()`'s short-lived copies.
 */
export function createS3Storage(opts: S3StorageOptions): MediaStorage & { readonly client: S3Client; readonly bucket: string; sweepCache(): Promise<number> } {
  const bucket = opts.bucket;
  const now = opts.now ?? Date.now;
  const ttlMs = opts.cacheTtlMs ?? 3600_000;
  const cacheDir = resolve(opts.cacheDir);
  const config: S3ClientConfig = {
    region: opts.region,
    forcePathStyle: opts.forcePathStyle,
    // The SDK's default adds CRC32 trailers to every upload, which MinIO, R2, Ceph and older
    // gateways reject or ignore; send checksums only where the S3 API demands them.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  };
  if (opts.endpoint) config.endpoint = opts.endpoint;
  if (opts.credentials) config.credentials = opts.credentials;
  const client = new S3Client(config);

  const checkKey = (key: string) => {
    if (!isMediaKey(key)) throw new Error(`invalid media key: ${key}`);
  };

  async function statOf(key: string) {
    if (!isMediaKey(key)) return undefined;
    try {
      const head = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
      return { size: head.ContentLength ?? 0 };
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  async function deleteObject(key: string) {
    try {
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }

  // ---- partial uploads: multipart uploads neither completed nor aborted ----

  /** When the upload last showed activity: its newest part, or its start when it has none. */
  async function lastActivity(key: string, uploadId: string, initiated: Date): Promise<number> {
    let latest = initiated.getTime();
    let marker: string | undefined;
    do {
      const page = await client.send(new ListPartsCommand({ Bucket: bucket, Key: key, UploadId: uploadId, PartNumberMarker: marker }));
      for (const part of page.Parts ?? []) latest = Math.max(latest, part.LastModified?.getTime() ?? 0);
      marker = page.IsTruncated ? page.NextPartNumberMarker : undefined;
    } while (marker);
    return latest;
  }

  /**
   * Aborts the media-key uploads with no activity since `olderThan`. `Initiated` alone would abort
   * a long upload still sending parts (a large video on a slow link), so the parts are asked too.
   */
  async function sweepPartial(olderThan: Date): Promise<number> {
    const cutoff = olderThan.getTime();
    const candidates: { key: string; uploadId: string; initiated: Date }[] = [];
    let keyMarker: string | undefined;
    let uploadIdMarker: string | undefined;
    for (;;) {
      const page = await client.send(new ListMultipartUploadsCommand({ Bucket: bucket, KeyMarker: keyMarker, UploadIdMarker: uploadIdMarker }));
      for (const u of page.Uploads ?? []) {
        if (u.Key && u.UploadId && u.Initiated && isMediaKey(u.Key) && u.Initiated.getTime() < cutoff) {
          candidates.push({ key: u.Key, uploadId: u.UploadId, initiated: u.Initiated });
        }
      }
      if (!page.IsTruncated) break;
      keyMarker = page.NextKeyMarker;
      uploadIdMarker = page.NextUploadIdMarker;
    }
    let aborted = 0;
    for (const c of candidates) {
      try {
        if ((await lastActivity(c.key, c.uploadId, c.initiated)) >= cutoff) continue;
        await client.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: c.key, UploadId: c.uploadId }));
        aborted++;
      } catch (err) {
        if (!isNotFound(err)) throw err; // completed or aborted meanwhile
      }
    }
    return aborted;
  }



  // ---- blob(): downloaded copies in cacheDir ----
  //
  // Node's file-backed Blob re-opens its file on every read and refuses to read once the file's
  // size or mtime changed, so a cached copy is never rewritten or touched in its mtime: its mtime is
  // set once (whole seconds, exactly representable) and "last used" lives in the atime (shared with
  // other processes using the same folder) and in `lastUse` (this process, no race with the sweep).
  const lastUse = new Map<string, number>();
  const downloading = new Map<string, Promise<void>>();
  const removing = new Map<string, Promise<void>>();
  const cacheName = (key: string) => key.replaceAll('/', '-');

  function download(key: string, name: string): Promise<void> {
    let pending = downloading.get(name);
    if (!pending) {
      pending = (async () => {
        await mkdir(cacheDir, { recursive: true });
        const part = join(cacheDir, `${name}.${randomBytes(6).toString('hex')}.part`);
        try {
          let res;
          try {
            res = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
          } catch (err) {
            if (isNotFound(err)) throw new Error(`media object ${key} is not in bucket ${bucket}`, { cause: err });
            throw err;
          }
          await pipelineAsync(res.Body as Readable, createWriteStream(part, { flags: 'wx' }));
          const written = (await stat(part)).size;
          if (res.ContentLength !== undefined && written !== res.ContentLength) {
            throw new Error(`media object ${key}: got ${written} of ${res.ContentLength} bytes`);
          }
          const t = now();
          await utimes(part, t / 1000, Math.floor(t / 1000));
          // link, not rename: a copy another process put there meanwhile may be in use, keep it
          // (rename only where the filesystem has no hard links)
          await link(part, join(cacheDir, name)).catch(async (err: NodeJS.ErrnoException) => {
            if (err.code === 'EEXIST') return;
            if (err.code === 'EPERM' || err.code === 'ENOTSUP' || err.code === 'ENOSYS') return rename(part, join(cacheDir, name));
            throw err;
          });
        } finally {
          await rm(part, { force: true });
        }
      })().finally(() => downloading.delete(name));
      downloading.set(name, pending);
    }
    return pending;
  }

  async function statFile(file: string) {
    try {
      return await stat(file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  }

  /** Removes copies unused for longer than the TTL and abandoned partial downloads. */
  async function sweepCache(): Promise<number> {
    const cutoff = now() - ttlMs;
    let names: string[];
    try {
      names = await readdir(cacheDir);
    } catch {
      return 0;
    }
    let removed = 0;
    for (const name of names) {
      const file = join(cacheDir, name);
      let s;
      try {
        s = await stat(file);
      } catch {
        continue;
      }
      if (!s.isFile()) continue;
      if (name.endsWith('.part')) {
        // a download still running keeps writing, so its mtime stays fresh
        if (s.mtimeMs < cutoff) {
          await rm(file, { force: true });
          removed++;
        }
        continue;
      }
      // Checked and marked in one tick: a blob() call that starts later waits for the removal.
      const used = Math.max(s.atimeMs, lastUse.get(name) ?? 0);
      if (used >= cutoff || downloading.has(name) || removing.has(name)) continue;
      const removal = rm(file, { force: true }).finally(() => {
        removing.delete(name);
        if ((lastUse.get(name) ?? 0) < cutoff) lastUse.delete(name);
      });
      removing.set(name, removal);
      await removal;
      removed++;
    }
    return removed;
  }

  const sweepTimer = setInterval(() => void sweepCache().catch(() => undefined), SWEEP_INTERVAL_MS);
  sweepTimer.unref();
  void sweepCache().catch(() => undefined); // copies left by an earlier run

  return {
    client,
    bucket,
    newKey: newMediaKey,

    async put(key, stream, putOpts = {}) {
      checkKey(key);
      const { signal } = putOpts;
      if (signal?.aborted) throw abortError();
      let size = 0;
      const body = new Transform({
        transform(chunk: Buffer, _enc, done) {
          size += chunk.length;
          done(null, chunk);
        },
      });
      // An error of the source (or the abort below) destroys `body`, so lib-storage's reader fails,
      // and `done()` then aborts the multipart upload before it rejects. (Upload.abort() is not used:
      // its `done()` rejects at once, before the in-flight parts and the abort request are finished.)
      pipeline(stream, body, () => undefined);
      const onAbort = () => body.destroy(abortError());
      signal?.addEventListener('abort', onAbort, { once: true });
      const upload = new Upload({
        client,
        params: {
          Bucket: bucket,
          Key: key,
          Body: body,
          // stored with the object, so a public bucket or CDN serves it with the right headers
          ContentType: mimeTypeOfExtension(key.slice(key.lastIndexOf('.') + 1)),
          CacheControl: 'public, max-age=31536000, immutable',
        },
        partSize: PART_SIZE,
        queueSize: QUEUE_SIZE,
        leavePartsOnError: false,
      });
      try {
        await upload.done();
        // The last request (a single PutObject or CompleteMultipartUpload) may have been in flight
        // when the caller gave up: the object exists now, so remove it.
        if (signal?.aborted) throw abortError();
      } catch (err) {
        stream.destroy();
        await deleteObject(key).catch(() => undefined);
        throw err;
      } finally {
        signal?.removeEventListener('abort', onAbort);
      }
      return { size };
    },

    async open(key, range?: ByteRange) {
      if (!isMediaKey(key)) return undefined;
      try {
        const res = await client.send(
          new GetObjectCommand({ Bucket: bucket, Key: key, ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}) }),
        );
        const size = (range ? totalFromContentRange(res.ContentRange) : res.ContentLength) ?? 0;
        return { stream: res.Body as Readable, size };
      } catch (err) {
        if (isNotFound(err)) return undefined;
        throw err;
      }
    },

    stat: statOf,

    async delete(key) {
      if (!isMediaKey(key)) return;
      // A copy in the blob cache stays until the sweep: an adapter may still be reading it.
      await deleteObject(key);
    },

    async blob(key, type) {
      checkKey(key);
      const name = cacheName(key);
      const file = join(cacheDir, name);
      const t = now();
      lastUse.set(name, Math.max(t, lastUse.get(name) ?? 0)); // before any await: the sweep keeps it
      await removing.get(name);
      let s = await statFile(file);
      if (!s) {
        try {
          await download(key, name);
        } catch (err) {
          if (lastUse.get(name) === t) lastUse.delete(name); // nothing to keep track of
          throw err;
        }
        s = await stat(file);
      }
      // atime = last use; the mtime must stay exactly as it is (see above)
      await utimes(file, t / 1000, s.mtime);
      return openAsBlob(file, { type });
    },

    publicUrl(key) {
      return opts.publicUrl === undefined ? undefined : `${opts.publicUrl}/${key}`;
    },

    async signedUrl(key) {
      checkKey(key);
      const url = await getSignedUrl(client, new GetObjectCommand({ Bucket: bucket, Key: key }), { expiresIn: opts.presignSeconds });
      return { url, expiresInSeconds: opts.presignSeconds };
    },

    sweepPartial,
    sweepCache,

    async close() {
      clearInterval(sweepTimer);
      client.destroy();
    },
  };
}
