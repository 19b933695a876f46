import { PlatformError, type OperationContext, type PublishMedia } from '../platform.js';
import { skoolError, skoolResult } from './errors.js';

/** Skool's private web API as the adapter calls it (session cookies): the requests and the shapes of their answers. */

export const SKOOL_API = 'https://api2.skool.com';

export interface SkoolCredentials {
  authToken: string;
  clientId: string;
  /** the account's Skool user id (owner of uploaded files, path of the groups listing) */
  userId: string;
}

export interface SkoolSelf {
  id: string;
  name?: string;
  first_name?: string;
  last_name?: string;
  metadata?: { picture_profile?: string };
}

export interface SkoolGroup {
  id: string;
  /** the group's URL slug (skool.com/<name>) */
  name: string;
  metadata?: { display_name?: string; labels?: string };
}

export interface SkoolLabel {
  id: string;
  metadata?: { display_name?: string };
}

export interface SkoolFile {
  file: { id: string };
  write_url: string;
  content_type: string;
  acl: string;
}

type Ctx = Pick<OperationContext, 'http'>;

const cookie = (c: Pick<SkoolCredentials, 'authToken' | 'clientId'>) => ({ cookie: `auth_token=${c.authToken}; client_id=${c.clientId}` });

/** `GET {path}` with the session cookies: the answer's result. */
export async function get<T>(ctx: Ctx, c: Pick<SkoolCredentials, 'authToken' | 'clientId'>, path: string): Promise<T> {
  return skoolResult<T>(await ctx.http.request({ method: 'GET', url: `${SKOOL_API}${path}`, headers: cookie(c) }));
}

/** Each file: a file record (POST /files), then its bytes PUT to the storage URL Skool hands out. */
export async function uploadFile(ctx: OperationContext, c: SkoolCredentials, m: PublishMedia): Promise<string> {
  const blob = await ctx.openMedia(m);
  const name = m.path.split('/').pop()?.split('?')[0] || `${m.id}`;
  const record = skoolResult<SkoolFile>(
    await ctx.http.request({
      method: 'POST',
      url: `${SKOOL_API}/files`,
      headers: cookie(c),
      body: { file_name: name, content_type: m.mimeType, content_length: blob.size, content_disposition: '', ref: '', owner_id: c.userId, large_thumbnail: false },
    }),
  );
  if (!record?.file?.id || !record.write_url) throw new PlatformError('rejected', 'Skool did not hand out an upload URL for the file');
  // Another origin (the file storage); the Blob streams, its size is the Content-Length.
  const put = await ctx.http.request({
    method: 'PUT',
    url: record.write_url,
    headers: { 'content-type': record.content_type || m.mimeType, ...(record.acl ? { 'x-amz-acl': record.acl } : {}) },
    body: blob,
    timeoutMs: 300_000,
  });
  if (put.status >= 400) {
    const err = skoolError(put)!;
    // The storage URL is signed and single-purpose: a refusal there is not the session's fault.
    if (err.kind === 'transient' || err.kind === 'rate_limited') throw err;
    const detail = typeof put.body === 'string' ? (/<Code>([^<]+)<\/Code>/.exec(put.body)?.[1] ?? put.body.slice(0, 200)) : err.message;
    throw new PlatformError('rejected', `Skool's file storage refused the upload (HTTP ${put.status}): ${detail}`, { status: put.status });
  }
  return record.file.id;
}

/** `POST /posts?follow=true`: the post or comment made. */
export async function createPost(ctx: Ctx, c: Pick<SkoolCredentials, 'authToken' | 'clientId'>, body: unknown) {
  return skoolResult<{ id?: string; name?: string }>(await ctx.http.request({ method: 'POST', url: `${SKOOL_API}/posts?follow=true`, headers: cookie(c), body }));
}
