import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { RangeReader } from './storage.js';
import { ContainerError, findMovieBoxes, readMovieMetadata, rotationOf } from './video-metadata.js';

const fixture = (name: string) => readFileSync(new URL(`../../../test/fixtures/media/${name}`, import.meta.url));

function box(type: string, payload: Buffer | number = 0): Buffer {
  const body = typeof payload === 'number' ? Buffer.alloc(payload) : payload;
  const header = Buffer.alloc(8);
  header.writeUInt32BE(8 + body.length, 0);
  header.write(type, 4, 'latin1');
  return Buffer.concat([header, body]);
}
/** A box with the 64-bit size form (size field 1, `largesize` after the type). */
function largeBox(type: string, payloadLength: number): Buffer {
  const header = Buffer.alloc(16);
  header.writeUInt32BE(1, 0);
  header.write(type, 4, 'latin1');
  header.writeBigUInt64BE(BigInt(16 + payloadLength), 8);
  return Buffer.concat([header, Buffer.alloc(payloadLength)]);
}
/** A box whose size field is 0: it runs to the end of the file. */
function toEndBox(type: string, payloadLength: number): Buffer {
  const header = Buffer.alloc(8);
  header.write(type, 4, 'latin1');
  return Buffer.concat([header, Buffer.alloc(payloadLength)]);
}
const FTYP = box('ftyp', Buffer.from('isom\0\0\x02\0isomiso2mp41', 'latin1'));

/** A reader over `data` that records every range asked for. */
function bufferReader(data: Buffer) {
  const reads: [number, number][] = [];
  const reader: RangeReader & { reads: typeof reads } = {
    size: data.length,
    reads,
    read(start, end) {
      reads.push([start, end]);
      if (start < 0 || end >= data.length || end < start) throw new Error(`bad range ${start}-${end}`);
      return Promise.resolve(data.subarray(start, end + 1));
    },
  };
  return reader;
}

const containerError = async (p: Promise<unknown>) => {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(ContainerError);
  return (e as ContainerError).message;
};

describe('findMovieBoxes (top-level box walk)', () => {
  it('finds ftyp and moov after a free and an mdat, reading only box headers on the way', async () => {
    const file = Buffer.concat([FTYP, box('free'), box('mdat', 5000), box('moov', 40)]);
    const reader = bufferReader(file);
    const found = await findMovieBoxes(reader);
    expect(found).toEqual({
      ftyp: { type: 'ftyp', start: 0, headerSize: 8, size: FTYP.length },
      moov: { type: 'moov', start: FTYP.length + 8 + 5008, headerSize: 8, size: 48 },
    });
    expect(reader.reads.every(([s, e]) => e - s + 1 <= 16)).toBe(true);
    expect(reader.reads.map(([s]) => s)).toEqual([0, FTYP.length, FTYP.length + 8, FTYP.length + 8 + 5008]);
  });

  it('follows a 64-bit largesize box', async () => {
    const file = Buffer.concat([FTYP, largeBox('mdat', 3000), box('moov', 8)]);
    const found = await findMovieBoxes(bufferReader(file));
    expect(found.moov).toEqual({ type: 'moov', start: FTYP.length + 3016, headerSize: 8, size: 16 });
    const large = await findMovieBoxes(bufferReader(Buffer.concat([FTYP, largeBox('moov', 100)])));
    expect(large.moov).toEqual({ type: 'moov', start: FTYP.length, headerSize: 16, size: 116 });
  });

  it('takes size 0 as "to the end of the file"', async () => {
    const found = await findMovieBoxes(bufferReader(Buffer.concat([FTYP, box('mdat', 100), toEndBox('moov', 77)])));
    expect(found.moov).toEqual({ type: 'moov', start: FTYP.length + 108, headerSize: 8, size: 85 });
    // an mdat running to the end leaves no room for a moov after it
    expect(await containerError(findMovieBoxes(bufferReader(Buffer.concat([FTYP, toEndBox('mdat', 100), box('moov', 8)]))))).toMatch(/no 'moov'/);
  });

  it('refuses truncated and malformed boxes, naming the box and offset', async () => {
    const cut = Buffer.concat([FTYP, box('moov', 100)]).subarray(0, FTYP.length + 50);
    expect(await containerError(findMovieBoxes(bufferReader(cut)))).toBe(`the file is truncated: the 'moov' box at offset ${FTYP.length} needs 108 bytes, 50 remain`);
    const cutLarge = Buffer.concat([FTYP, largeBox('mdat', 10)]).subarray(0, FTYP.length + 12);
    expect(await containerError(findMovieBoxes(bufferReader(cutLarge)))).toMatch(/'mdat' box at offset \d+ is cut off inside its 64-bit size/);
    const tiny = Buffer.concat([FTYP, Buffer.from([0, 0, 0, 4]), Buffer.from('free'), Buffer.alloc(8)]);
    expect(await containerError(findMovieBoxes(bufferReader(tiny)))).toMatch(/'free' box at offset \d+ declares 4 bytes, less than its own header/);
    const stray = Buffer.concat([FTYP, box('free'), Buffer.from([1, 2, 3])]);
    expect(await containerError(findMovieBoxes(bufferReader(stray)))).toMatch(/3 stray bytes at offset/);
    const binary = Buffer.concat([FTYP, Buffer.from([0, 0, 0, 16, 0x00, 0xff, 0x13, 0x88]), Buffer.alloc(8)]);
    expect(await containerError(findMovieBoxes(bufferReader(binary)))).toMatch(/no valid box at offset \d+ \(type bytes 00ff1388\)/);
    const huge = Buffer.alloc(16);
    huge.writeUInt32BE(1, 0);
    huge.write('mdat', 4, 'latin1');
    huge.writeBigUInt64BE(2n ** 63n, 8);
    expect(await containerError(findMovieBoxes(bufferReader(Buffer.concat([FTYP, huge]))))).toMatch(/impossible size/);
  });

  it('refuses files without moov, an empty file, a moov over the bound and endless box chains', async () => {
    expect(await containerError(findMovieBoxes(bufferReader(FTYP)))).toMatch(/no 'moov' box/);
    expect(await containerError(findMovieBoxes(bufferReader(Buffer.alloc(0))))).toBe('the file is empty');
    expect(await containerError(findMovieBoxes(bufferReader(Buffer.concat([FTYP, box('moov', 2000)])), 1024))).toBe(
      "the 'moov' box is 2008 bytes, more than the 1024 accepted",
    );
    const chain = Buffer.concat([FTYP, ...Array.from({ length: 1100 }, () => box('free')), box('moov', 8)]);
    expect(await containerError(findMovieBoxes(bufferReader(chain)))).toMatch(/more than 1024 top-level boxes/);
  });
});

describe('rotationOf', () => {
  const one = 0x10000;
  it.each([
    [[one, 0, 0, 0, one, 0, 0, 0, 0x40000000], 0],
    [[0, one, 0, -one, 0, 0, 0, 0, 0x40000000], 90],
    [[-one, 0, 0, 0, -one, 0, 0, 0, 0x40000000], 180],
    [[0, -one, 0, one, 0, 0, 0, 0, 0x40000000], 270],
    [[0, 0, 0, 0, 0, 0, 0, 0, 0], 0],
  ])('%j → %i°', (matrix, degrees) => {
    expect(rotationOf(matrix)).toBe(degrees);
  });
});

describe('readMovieMetadata on the fixtures (values as ffmpeg reported them, see test/fixtures/media/README.md)', () => {
  it.each([
    ['h264-aac-moov-end.mp4', { duration: 2, width: 160, height: 120, codecs: 'avc1.64001f,mp4a.40.2' }],
    ['h264-aac-faststart.mp4', { duration: 2, width: 160, height: 120, codecs: 'avc1.64001f,mp4a.40.2' }],
    ['h264-rotated-90.mp4', { duration: 2, width: 120, height: 160, codecs: 'avc1.64001f,mp4a.40.2' }],
    ['hevc-aac.mov', { duration: 1.52, width: 192, height: 108, codecs: 'hvc1.1.6.L30.90,mp4a.40.2' }],
  ])('%s', async (name, expected) => {
    const data = fixture(name);
    const reader = bufferReader(data);
    expect(await readMovieMetadata(reader)).toEqual(expected);
    // never more than the moov, the ftyp and a few box headers
    const moov = await findMovieBoxes(bufferReader(data));
    const bytesRead = reader.reads.reduce((n, [s, e]) => n + e - s + 1, 0);
    expect(bytesRead).toBeLessThanOrEqual(moov.moov.size + (moov.ftyp?.size ?? 0) + 16 * 6);
    expect(reader.reads.some(([s, e]) => e - s + 1 > 16 && s !== moov.moov.start && s !== 0)).toBe(false);
  });

  it('reads a moov behind a 5 GiB mdat (64-bit size) without touching the media data', async () => {
    const src = fixture('h264-aac-faststart.mp4');
    const { ftyp, moov } = await findMovieBoxes(bufferReader(src));
    const ftypBytes = src.subarray(0, ftyp!.size);
    const moovBytes = src.subarray(moov.start, moov.start + moov.size);
    const mdatSize = 5 * 1024 ** 3;
    const mdatHeader = Buffer.alloc(16);
    mdatHeader.writeUInt32BE(1, 0);
    mdatHeader.write('mdat', 4, 'latin1');
    mdatHeader.writeBigUInt64BE(BigInt(mdatSize), 8);
    const moovStart = ftypBytes.length + mdatSize;
    // A virtual file: ftyp, the mdat header, 5 GiB nobody may read, moov.
    const reader: RangeReader = {
      size: moovStart + moovBytes.length,
      read(start, end) {
        if (start >= moovStart) return Promise.resolve(moovBytes.subarray(start - moovStart, end - moovStart + 1));
        if (end < ftypBytes.length) return Promise.resolve(ftypBytes.subarray(start, end + 1));
        if (start === ftypBytes.length && end < ftypBytes.length + 16) return Promise.resolve(mdatHeader.subarray(0, end - start + 1));
        throw new Error(`read of the media data: ${start}-${end}`);
      },
    };
    expect(await readMovieMetadata(reader)).toEqual({ duration: 2, width: 160, height: 120, codecs: 'avc1.64001f,mp4a.40.2' });
  });

  it('refuses a moov whose insides are garbage or cut short', async () => {
    const data = fixture('h264-aac-faststart.mp4');
    const { moov } = await findMovieBoxes(bufferReader(data));
    expect(moov.start).toBe(32);
    const garbled = Buffer.from(data);
    garbled.fill(0x41, 300, 1200); // inside the video track's 'mdia'
    expect(await containerError(readMovieMetadata(bufferReader(garbled)))).toBe("the 'AAAA' box at offset 324 does not fit in its 'mdia' box (truncated or corrupt)");
    // a moov that claims to end early (and the file with it): its first track runs past its end
    const short = Buffer.from(data.subarray(0, 32 + 300));
    short.writeUInt32BE(300, 32);
    expect(await containerError(readMovieMetadata(bufferReader(short)))).toBe("the 'trak' box at offset 148 does not fit in its 'moov' box (truncated or corrupt)");
    // well-formed boxes with nothing mp4box can use in them
    const zeroed = Buffer.from(data);
    zeroed.fill(0, moov.start + 8, moov.start + moov.size);
    expect(await containerError(readMovieMetadata(bufferReader(zeroed)))).toMatch(/^the 'moov' box could not be parsed \(.+\)$/);
  });

  it('a moov with a movie header and no tracks parses, with nothing to report', async () => {
    const mvhd = box('mvhd', 100);
    expect(await readMovieMetadata(bufferReader(Buffer.concat([FTYP, box('moov', mvhd)])))).toEqual({ duration: null, width: null, height: null, codecs: null });
  });
});
