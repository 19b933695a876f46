import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request as httpRequest } from 'node:http';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { createChannel } from '../../../test/factories.js';
import { call, expectError, expectIsolated, useTestApp } from '../../../test/helpers.js';
import { filesUnder, multipart, postUpload, uploadMedia, type MediaItem } from '../../../test/media.js';

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');
const GIF = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
const JPEG = Buffer.from(
  '/9j/4AAQSkZJRgABAQEASABIAAD/2wBDAP//////////////////////////////////////////////////////////////////////////////////////wgALCAABAAEBAREA/8QAFBABAAAAAAAAAAAAAAAAAAAAAP/aAAgBAQABPxA=',
  'base64',
);
const WEBP = Buffer.from('UklGRiIAAABXRUJQVlA4IBYAAAAwAQCdASoBAAEADsD+JaQAA3AAAAAA', 'base64');

function box(type: string, payload: Buffer): Buffer {
  const header = Buffer.alloc(8);
  header.writeUInt32BE(8 + payload.length, 0);
  header.write(type, 4, 'latin1');
  return Buffer.concat([header, payload]);
}
function ftyp(major: string, compatible: string[]): Buffer {
  const version = Buffer.alloc(4);
  version.writeUInt32BE(0x200, 0);
  return box('ftyp', Buffer.concat([Buffer.from(major, 'latin1'), version, ...compatible.map((c) => Buffer.from(c, 'latin1'))]));
}
const MP4 = Buffer.concat([ftyp('isom', ['isom', 'iso2', 'mp41']), box('moov', box('mvhd', Buffer.alloc(100)))]);
const MOV = Buffer.concat([ftyp('qt  ', ['qt  ']), box('moov', box('mvhd', Buffer.alloc(100)))]);
const ELF = Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0]), Buffer.alloc(200)]);

const sha = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

describe('media library', () => {
  let dataDir: string;
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });
  const { t, orgs: { acme, beta } } = useTestApp(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'tidings-media-'));
    return { env: { DATA_DIR: dataDir, MEDIA_MAX_IMAGE_BYTES: '1000', MEDIA_MAX_VIDEO_BYTES: '5000', MEDIA_MAX_AUDIO_BYTES: '3000' } };
  }, 'Acme', 'Beta');

  const mediaUrl = (item: MediaItem) => new URL(item.path).pathname;
  const rowCount = async (orgId: string) =>
    Number((await t.deps.database.sql.executeSql('SELECT count(*)::int AS n FROM media WHERE organization_id = $1', [orgId])).rows[0]!.n);

  describe('upload', () => {
    it.each([
      ['photo.png', PNG, 'image', 'image/png', 1, 1],
      ['anim.gif', GIF, 'image', 'image/gif', 1, 1],
      ['photo.jpg', JPEG, 'image', 'image/jpeg', 1, 1],
      ['photo.webp', WEBP, 'image', 'image/webp', 1, 1],
      ['clip.mp4', MP4, 'video', 'video/mp4', null, null],
      ['clip.mov', MOV, 'video', 'video/quicktime', null, null],
    ] as const)('accepts %s as %s (%s)', async (filename, data, type, mimeType, width, height) => {
      const item = await uploadMedia(t, acme, data, filename);
      expect(item).toEqual({
        id: expect.any(String),
        name: expect.stringMatching(/^[0-9a-f]{32}\.\w+$/),
        originalName: filename,
        path: expect.stringMatching(new RegExp(`^${t.deps.config.publicUrl}/media/\\d{4}/\\d{2}/[0-9a-f]{32}\\.\\w+$`)),
        thumbnail: null,
        alt: null,
        type,
        mimeType,
        size: data.length,
        width,
        height,
        duration: null,
        // the synthetic MP4/MOV have a movie header but no tracks: nothing to report
        codecs: null,
      });
      const served = await t.app.inject({ method: 'GET', url: mediaUrl(item) });
      expect(served.statusCode).toBe(200);
      expect(served.headers['content-type']).toBe(mimeType);
      expect(sha(served.rawPayload)).toBe(sha(data));
    });

    it('refuses a renamed executable, a missing file and the wrong field, naming `file`', async () => {
      const before = (await filesUnder(join(dataDir, 'media'))).length;
      const elf = expectError(await postUpload(t, acme, ELF, 'photo.png'), 400, 'VALIDATION_FAILED');
      expect(elf.fields!.map((f) => f.path)).toEqual(['file']);
      const noFile = multipart([{ field: 'alt', data: 'hello' }]);
      const none = expectError(await call(t.app, acme.apiKey, { method: 'POST', url: '/public/v1/upload', ...noFile }), 400, 'VALIDATION_FAILED');
      expect(none.fields!.map((f) => f.path)).toEqual(['file']);
      const wrong = expectError(await postUpload(t, acme, PNG, 'photo.png', { field: 'image' }), 400, 'VALIDATION_FAILED');
      expect(wrong.fields!.map((f) => f.path)).toEqual(['file']);
      const json = expectError(await call(t.app, acme.apiKey, { method: 'POST', url: '/public/v1/upload', payload: {} }), 400, 'VALIDATION_FAILED');
      expect(json.fields!.map((f) => f.path)).toEqual(['file']);
      expect((await filesUnder(join(dataDir, 'media'))).length).toBe(before);
    });

    it('413 over the per-type cap, with no file and no row left behind', async () => {
      const before = await filesUnder(join(dataDir, 'media'));
      const rows = await rowCount(acme.id);
      const bigPng = Buffer.concat([PNG, Buffer.alloc(5000)]);
      expectError(await postUpload(t, acme, bigPng, 'big.png'), 413, 'PAYLOAD_TOO_LARGE');
      // a 3000-byte PNG is over the image cap though under the video cap
      expectError(await postUpload(t, acme, Buffer.concat([PNG, Buffer.alloc(3000)]), 'mid.png'), 413, 'PAYLOAD_TOO_LARGE');
      expectError(await postUpload(t, acme, Buffer.concat([MP4, Buffer.alloc(6000)]), 'big.mp4'), 413, 'PAYLOAD_TOO_LARGE');
      expect(await filesUnder(join(dataDir, 'media'))).toEqual(before);
      expect(await rowCount(acme.id)).toBe(rows);
    });

    it('audio files (background music for generated videos): accepted as `audio` up to MEDIA_MAX_AUDIO_BYTES', async () => {
      // A WAV header (RIFF/WAVE, a PCM fmt chunk) and silence.
      const wav = (bytes: number) => {
        const b = Buffer.alloc(bytes);
        b.write('RIFF', 0, 'latin1');
        b.writeUInt32LE(bytes - 8, 4);
        b.write('WAVEfmt ', 8, 'latin1');
        b.writeUInt32LE(16, 16);
        b.writeUInt16LE(1, 20);
        b.writeUInt16LE(1, 22);
        b.writeUInt32LE(8000, 24);
        b.writeUInt32LE(16000, 28);
        b.writeUInt16LE(2, 32);
        b.writeUInt16LE(16, 34);
        b.write('data', 36, 'latin1');
        b.writeUInt32LE(bytes - 44, 40);
        return b;
      };
      const item = await uploadMedia(t, acme, wav(2000), 'tune.wav');
      expect(item).toMatchObject({ type: 'audio', mimeType: 'audio/wav', size: 2000, width: null, height: null, duration: null });
      const over = expectError(await postUpload(t, acme, wav(4000), 'long.wav'), 413, 'PAYLOAD_TOO_LARGE');
      expect(over.message).toBe('file: audio files may be at most 3000 bytes');
    });

    it('a truncated multipart body is an error, not 201, and leaves nothing', async () => {
      const before = await filesUnder(join(dataDir, 'media'));
      const rows = await rowCount(acme.id);
      const res = await postUpload(t, acme, Buffer.concat([MP4, Buffer.alloc(2000)]), 'cut.mp4', { truncate: true });
      expectError(res, 400, 'BAD_REQUEST');
      expect(await filesUnder(join(dataDir, 'media'))).toEqual(before);
      expect(await rowCount(acme.id)).toBe(rows);
    });
  });

  describe('list and delete', () => {
    it('lists newest first in pages of 100', async () => {
      const org = await t.createOrg('Lister');
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) ids.push((await uploadMedia(t, org, PNG, `p${i}.png`)).id);
      const res = await call(t.app, org.apiKey, { method: 'GET', url: '/public/v1/media' });
      expect(res.statusCode).toBe(200);
      const page = res.json<{ media: MediaItem[]; total: number; page: number; limit: number; hasMore: boolean }>();
      expect({ total: page.total, page: page.page, limit: page.limit, hasMore: page.hasMore }).toEqual({ total: 3, page: 0, limit: 100, hasMore: false });
      expect(page.media.map((m) => m.id)).toEqual([...ids].reverse());
      const p1 = (await call(t.app, org.apiKey, { method: 'GET', url: '/public/v1/media?page=1' })).json<{ media: MediaItem[]; page: number }>();
      expect({ page: p1.page, n: p1.media.length }).toEqual({ page: 1, n: 0 });
      const bad = expectError(await call(t.app, org.apiKey, { method: 'GET', url: '/public/v1/media?page=-1' }), 400, 'VALIDATION_FAILED');
      expect(bad.fields![0]!.path).toBe('page');
      expect((await call(t.app, beta.apiKey, { method: 'GET', url: '/public/v1/media' })).json<{ total: number }>().total).toBe(0);
    });

    it('409 while a queued post uses the media, naming the post; 200 otherwise, and the file goes', async () => {
      const item = await uploadMedia(t, acme, PNG, 'used.png');
      const channel = await createChannel(t, acme, 'telegram');
      const date = new Date(Date.now() + 86_400_000).toISOString();
      const post = await call(t.app, acme.apiKey, {
        method: 'POST',
        url: '/public/v1/posts',
        payload: { type: 'schedule', date, shortLink: false, tags: [], posts: [{ integration: { id: channel.id }, value: [{ content: 'Hi', image: [{ id: item.id, path: item.path }] }] }] },
      });
      expect(post.statusCode, post.body).toBe(201);
      const postId = post.json<{ postId: string }[]>()[0]!.postId;
      const conflict = expectError(await call(t.app, acme.apiKey, { method: 'DELETE', url: `/public/v1/media/${item.id}` }), 409, 'CONFLICT');
      expect(conflict.message).toContain(postId);
      // GET /media/{id}/uses (extension): what uses it, and that it blocks the delete
      const uses = await call(t.app, acme.apiKey, { method: 'GET', url: `/public/v1/media/${item.id}/uses` });
      expect(uses.statusCode, uses.body).toBe(200);
      expect(uses.json()).toEqual({
        posts: [{ postId, threadItem: false, state: 'QUEUE', publishDate: expect.any(String), integration: { id: channel.id, name: channel.name, identifier: 'telegram' } }],
        blocksDelete: true,
      });

      const free = await uploadMedia(t, acme, GIF, 'free.gif');
      expect((await call(t.app, acme.apiKey, { method: 'GET', url: `/public/v1/media/${free.id}/uses` })).json()).toEqual({ posts: [], blocksDelete: false });
      const del = await call(t.app, acme.apiKey, { method: 'DELETE', url: `/public/v1/media/${free.id}` });
      expect(del.statusCode, del.body).toBe(200);
      expect(del.json<MediaItem>().id).toBe(free.id);
      expect((await t.app.inject({ method: 'GET', url: mediaUrl(free) })).statusCode).toBe(404);
      expectError(await call(t.app, acme.apiKey, { method: 'DELETE', url: `/public/v1/media/${free.id}` }), 404, 'NOT_FOUND');
      expectError(await call(t.app, acme.apiKey, { method: 'DELETE', url: '/public/v1/media/not-an-id' }), 404, 'NOT_FOUND');
    });

    it("another organisation's media answers 404", async () => {
      const item = await uploadMedia(t, acme, PNG, 'mine.png');
      await expectIsolated(t.app, { method: 'GET', url: `/public/v1/media/${item.id}/uses` }, acme, beta);
      await expectIsolated(t.app, { method: 'DELETE', url: `/public/v1/media/${item.id}` }, acme, beta);
    });
  });

  describe('serving /media/*', () => {
    it('serves the bytes with long cache headers, ranges as 206, unknown or odd paths as 404', async () => {
      const data = Buffer.concat([MP4, Buffer.from('0123456789abcdef')]);
      const item = await uploadMedia(t, acme, data, 'ranged.mp4');
      const full = await t.app.inject({ method: 'GET', url: mediaUrl(item) });
      expect(full.statusCode).toBe(200);
      expect(full.headers['accept-ranges']).toBe('bytes');
      expect(full.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(full.headers['content-type']).toBe('video/mp4');
      expect(sha(full.rawPayload)).toBe(sha(data));

      const part = await t.app.inject({ method: 'GET', url: mediaUrl(item), headers: { range: 'bytes=10-19' } });
      expect(part.statusCode).toBe(206);
      expect(part.headers['content-range']).toBe(`bytes 10-19/${data.length}`);
      expect(part.rawPayload.equals(data.subarray(10, 20))).toBe(true);
      const tail = await t.app.inject({ method: 'GET', url: mediaUrl(item), headers: { range: 'bytes=-5' } });
      expect(tail.statusCode).toBe(206);
      expect(tail.rawPayload.equals(data.subarray(data.length - 5))).toBe(true);
      const beyond = await t.app.inject({ method: 'GET', url: mediaUrl(item), headers: { range: `bytes=${data.length + 10}-` } });
      expect(beyond.statusCode).toBe(416);

      const [yyyy, mm] = item.path.split('/media/')[1]!.split('/');
      for (const url of [
        `/media/${yyyy}/${mm}/${'0'.repeat(32)}.mp4`,
        '/media/../../etc/passwd',
        `/media/${yyyy}/${mm}/..%2F..%2F..%2Fetc%2Fpasswd`,
        `/media/${yyyy}/${mm}/${item.name}.tmp`,
        '/media/',
      ]) {
        const res = await t.app.inject({ method: 'GET', url });
        expect(res.statusCode, url).toBe(404);
      }
    });
  });

  describe('adapters', () => {
    it('openMedia gives a file-backed Blob of the stored bytes', async () => {
      const item = await uploadMedia(t, acme, JPEG, 'blob.jpg');
      const blob = await t.deps.services.media.blob({ id: item.id });
      expect(blob.type).toBe('image/jpeg');
      expect(sha(Buffer.from(await blob.arrayBuffer()))).toBe(sha(JPEG));
    });
  });

  it('a client that goes away in the middle of an upload leaves no file and no item', async () => {
    const before = await filesUnder(join(dataDir, 'media'));
    const listed = async () => (await call(t.app, acme.apiKey, { method: 'GET', url: '/public/v1/media' })).json<{ total: number }>().total;
    const total = await listed();
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { payload, headers } = multipart([{ field: 'file', filename: 'clip.mp4', data: Buffer.concat([MP4, Buffer.alloc(4400)]) }], { truncate: true });
    const req = httpRequest(`${address}/public/v1/upload`, {
      method: 'POST',
      headers: { ...headers, authorization: acme.apiKey, 'content-length': String(payload.length + 100_000) },
    });
    req.on('error', () => undefined);
    req.write(payload);
    // the video is streaming to storage (a temp file) when the client goes away
    await vi.waitFor(async () => expect((await filesUnder(join(dataDir, 'media'))).some((f) => f.endsWith('.tmp'))).toBe(true));
    req.destroy();
    await vi.waitFor(async () => expect(await filesUnder(join(dataDir, 'media'))).toEqual(before));
    expect(await listed()).toBe(total);
  });
});
