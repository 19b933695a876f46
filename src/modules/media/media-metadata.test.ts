import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { call, expectError, useTestApp } from '../../../test/helpers.js';
import { filesUnder, postUpload, uploadMedia, type MediaItem } from '../../../test/media.js';

/** The real files of test/fixtures/media (how they were made and what ffmpeg said: its README). */
const fixture = (name: string) => readFileSync(new URL(`../../../test/fixtures/media/${name}`, import.meta.url));

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const H264_AAC = 'avc1.64001f,mp4a.40.2';

describe('media metadata from the real files', () => {
  let dataDir: string;
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });
  const { t, orgs: { meta: org } } = useTestApp(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'tidings-media-meta-'));
    return { env: { DATA_DIR: dataDir } };
  }, 'Meta');

  const listAll = async () => {
    const res = await call(t.app, org.apiKey, { method: 'GET', url: '/public/v1/media' });
    expect(res.statusCode, res.body).toBe(200);
    return res.json<{ media: MediaItem[]; total: number }>();
  };

  it.each([
    ['photo-64x48.jpg', 'image', 'image/jpeg', { width: 64, height: 48, duration: null, codecs: null }],
    ['photo-48x64.png', 'image', 'image/png', { width: 48, height: 64, duration: null, codecs: null }],
    ['still-32x24.gif', 'image', 'image/gif', { width: 32, height: 24, duration: null, codecs: null }],
    ['photo-80x60.webp', 'image', 'image/webp', { width: 80, height: 60, duration: null, codecs: null }],
    ['h264-aac-moov-end.mp4', 'video', 'video/mp4', { width: 160, height: 120, duration: 2, codecs: H264_AAC }],
    ['h264-aac-faststart.mp4', 'video', 'video/mp4', { width: 160, height: 120, duration: 2, codecs: H264_AAC }],
    ['h264-rotated-90.mp4', 'video', 'video/mp4', { width: 120, height: 160, duration: 2, codecs: H264_AAC }],
    ['hevc-aac.mov', 'video', 'video/quicktime', { width: 192, height: 108, duration: 1.52, codecs: 'hvc1.1.6.L30.90,mp4a.40.2' }],
  ] as const)('%s: %s %s with its size, dimensions, duration and codecs', async (name, type, mimeType, meta) => {
    const data = fixture(name);
    const item = await uploadMedia(t, org, data, name);
    expect(item).toMatchObject({ type, mimeType, size: data.length, thumbnail: null, ...meta });
    // stored with the row, not only answered once
    const listed = (await listAll()).media.find((m) => m.id === item.id);
    expect(listed).toEqual(item);
    const served = await t.app.inject({ method: 'GET', url: new URL(item.path).pathname });
    expect(served.statusCode).toBe(200);
    expect(sha(served.rawPayload)).toBe(sha(data));
  });

  it.each([
    ['avif', 'image/avif'],
    ['tiff', 'image/tiff'],
  ] as const)('%s (converted when published: no platform takes it) is accepted with its dimensions', async (format, mimeType) => {
    const data = await sharp({ create: { width: 90, height: 60, channels: 3, background: '#cc3333' } })
      .toFormat(format)
      .toBuffer();
    const item = await uploadMedia(t, org, data, `picture.${format}`);
    expect(item).toMatchObject({ type: 'image', mimeType, size: data.length, width: 90, height: 60 });
    const served = await t.app.inject({ method: 'GET', url: new URL(item.path).pathname });
    expect([served.statusCode, served.headers['content-type']]).toEqual([200, mimeType]);
  });

  it('a phone-style JPEG: the frame header lies past a 30 KB EXIF block, and the EXIF orientation turns it upright', async () => {
    const data = await sharp({ create: { width: 400, height: 300, channels: 3, background: '#808080' } })
      .withExif({ IFD0: { ImageDescription: 'x'.repeat(30_000) } })
      .withMetadata({ orientation: 6 })
      .jpeg()
      .toBuffer();
    const item = await uploadMedia(t, org, data, 'IMG_0001.jpg');
    expect(item).toMatchObject({ type: 'image', mimeType: 'image/jpeg', width: 300, height: 400 });
  });

  describe('a video whose container cannot be parsed is refused, naming `file`, with nothing stored', () => {
    const faststart = fixture('h264-aac-faststart.mp4');
    const moovEnd = fixture('h264-aac-moov-end.mp4');
    const ftyp = faststart.subarray(0, 32); // the fixtures' ftyp is 32 bytes (README)
    const garbage = Buffer.alloc(4096);
    for (let i = 0; i < garbage.length; i++) garbage[i] = (i * 131 + 7) % 251;
    const zeroedMoov = Buffer.from(faststart);
    zeroedMoov.fill(0, 40, 32 + 2386);
    const cutTrack = Buffer.from(faststart.subarray(0, 32 + 300));
    cutTrack.writeUInt32BE(300, 32);

    it.each([
      ['an ftyp followed by garbage', ftyp, garbage, /no valid box at offset 32/],
      ['an ftyp and an mdat, no moov', ftyp, Buffer.concat([Buffer.from([0, 0, 0x10, 0x08]), Buffer.from('mdat'), Buffer.alloc(0x1000)]), /no 'moov' box/],
      ['a moov-at-end file cut short', moovEnd.subarray(0, 32), moovEnd.subarray(32, moovEnd.length - 100), /the file is truncated: the 'moov' box at offset 21207/],
      ['a faststart file cut inside its moov', faststart.subarray(0, 32), faststart.subarray(32, 2000), /the file is truncated: the 'moov' box at offset 32/],
      ['a moov whose first track runs past it', cutTrack.subarray(0, 32), cutTrack.subarray(32), /the 'trak' box at offset 148 does not fit/],
      ['a moov of zeros', zeroedMoov.subarray(0, 32), zeroedMoov.subarray(32), /the 'moov' box could not be parsed/],
    ])('%s', async (_label, head, rest, reason) => {
      const filesBefore = await filesUnder(join(dataDir, 'media'));
      const totalBefore = (await listAll()).total;
      const body = expectError(await postUpload(t, org, Buffer.concat([head, rest]), 'broken.mp4'), 400, 'VALIDATION_FAILED');
      expect(body.fields).toEqual([{ path: 'file', message: expect.stringMatching(/^not a playable MP4\/MOV: /) }]);
      expect(body.message).toMatch(/^file: not a playable MP4\/MOV: /);
      expect(body.message).toMatch(reason);
      expect(await filesUnder(join(dataDir, 'media'))).toEqual(filesBefore);
      expect((await listAll()).total).toBe(totalBefore);
    });
  });
});
