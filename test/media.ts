import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { MediaItem } from '../src/modules/media/media.schemas.js';
import { call, type TestApp, type TestOrg } from './helpers.js';

/** Uploads in tests: multipart bodies built by hand, `POST /upload`, and the files the local storage keeps. */

export type { MediaItem };

const BOUNDARY = '----tidings-test-boundary';

export interface MultipartPart {
  field: string;
  /** absent: a plain form field, not a file */
  filename?: string;
  /** the part's Content-Type header; absent: none */
  type?: string;
  data: Buffer | string;
}

/**
 * A multipart/form-data body of these parts, ready to spread into `inject` options.
 * `truncate` leaves out the closing boundary, as a client that stopped half way would.
 */
export function multipart(parts: MultipartPart[], opts: { truncate?: boolean } = {}) {
  const chunks: Buffer[] = [];
  for (const p of parts) {
    const disposition = `form-data; name="${p.field}"${p.filename === undefined ? '' : `; filename="${p.filename}"`}`;
    chunks.push(Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: ${disposition}\r\n${p.type ? `Content-Type: ${p.type}\r\n` : ''}\r\n`));
    chunks.push(Buffer.isBuffer(p.data) ? p.data : Buffer.from(p.data));
    chunks.push(Buffer.from('\r\n'));
  }
  if (!opts.truncate) chunks.push(Buffer.from(`--${BOUNDARY}--\r\n`));
  return { payload: Buffer.concat(chunks), headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` } };
}

export interface UploadOptions {
  /** the form field carrying the file (`file`, the one the API reads) */
  field?: string;
  /** the Content-Type the client declares for the file (`application/octet-stream`) */
  type?: string;
  truncate?: boolean;
}

/** `POST /public/v1/upload` of one file, whatever the answer (for refused uploads). */
export function postUpload(t: TestApp, org: TestOrg, data: Buffer, filename: string, opts: UploadOptions = {}): Promise<LightMyRequestResponse> {
  const body = multipart([{ field: opts.field ?? 'file', filename, type: opts.type ?? 'application/octet-stream', data }], { truncate: opts.truncate });
  return call(t.app, org.apiKey, { method: 'POST', url: '/public/v1/upload', ...body });
}

/** `POST /public/v1/upload` of one file that must be accepted (201): the media item. */
export async function uploadMedia(t: TestApp, org: TestOrg, data: Buffer, filename: string, opts: Omit<UploadOptions, 'truncate'> = {}): Promise<MediaItem> {
  const res = await postUpload(t, org, data, filename, opts);
  expect(res.statusCode, res.body).toBe(201);
  return res.json<MediaItem>();
}

/** Every file under `dir`, recursively (none when it does not exist yet). */
export async function filesUnder(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir, { recursive: true, withFileTypes: true })).filter((d) => d.isFile()).map((d) => join(d.parentPath, d.name));
  } catch {
    return [];
  }
}
