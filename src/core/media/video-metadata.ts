import { createFile, MP4BoxBuffer, type Movie, type Track } from 'mp4box';
import { ShortReadError, storageReader, type MediaStorage, type RangeReader } from './storage.js';

/** What the container of an MP4/MOV says about the video; null where it says nothing. */
export interface VideoMetadata {
  /** seconds */
  duration: number | null;
  /** display width: the track header's size, swapped for a 90°/270° rotation */
  width: number | null;
  height: number | null;
  /** RFC 6381 codec strings of the tracks, comma-separated (`avc1.64001f,mp4a.40.2`) */
  codecs: string | null;
}

/** The container cannot be read: the message says why, in words a user can act on. */
export class ContainerError extends Error {
  override name = 'ContainerError';
}


/** A top-level box: its four-character type, where it starts, its header and total size. */
export interface TopLevelBox {
  type: string;
  start: number;
  headerSize: number;
  size: number;
}

/**
 * A `moov` holds the sample tables of every track: about 10–20 bytes per sample, so even hours of
 * 60 fps video stay under a few MiB. Anything larger is refused rather than read into memory.
 */
export const MAX_MOOV_BYTES = 64 * 1024 * 1024;
const MAX_FTYP_BYTES = 64 * 1024;
/** Real files have a handful of top-level boxes; this bounds the ranged reads a crafted file causes. */
const MAX_TOP_LEVEL_BOXES = 1024;

const isBoxTypeChar = (c: number) => (c >= 0x20 && c <= 0x7e) || c === 0xa9; // printable ASCII and '©'

/**
 * Walks the top-level boxes from offset 0 with one small ranged read per box header (the payloads,
 * `mdat` above all, are never read) until it finds `moov`. Handles the 64-bit `largesize` (size 1)
 * and size 0 (the box runs to the end of the file). Returns the leading `ftyp` (if any) and `moov`;
 * throws `ContainerError` for a box that is malformed or runs past the end of the file, for a file
 * without `moov`, and for a `moov` over `maxMoovBytes`.
 */
export async function findMovieBoxes(reader: RangeReader, maxMoovBytes = MAX_MOOV_BYTES): Promise<{ ftyp?: TopLevelBox; moov: TopLevelBox }> {
  let ftyp: TopLevelBox | undefined;
  let pos = 0;
  for (let n = 0; pos < reader.size; n++) {
    if (n >= MAX_TOP_LEVEL_BOXES) throw new ContainerError(`more than ${MAX_TOP_LEVEL_BOXES} top-level boxes before 'moov'`);
    const left = reader.size - pos;
    if (left < 8) throw new ContainerError(`${left} stray bytes at offset ${pos}, too few for a box header`);
    const head = await reader.read(pos, pos + Math.min(16, left) - 1);
    if (!head.subarray(4, 8).every(isBoxTypeChar)) {
      throw new ContainerError(`no valid box at offset ${pos} (type bytes ${head.subarray(4, 8).toString('hex')})`);
    }
    const type = head.toString('latin1', 4, 8);
    const size32 = head.readUInt32BE(0);
    let headerSize = 8;
    let size: number;
    if (size32 === 1) {
      if (head.length < 16) throw new ContainerError(`the '${type}' box at offset ${pos} is cut off inside its 64-bit size`);
      const large = head.readBigUInt64BE(8);
      if (large > BigInt(Number.MAX_SAFE_INTEGER)) throw new ContainerError(`the '${type}' box at offset ${pos} declares an impossible size (${large})`);
      size = Number(large);
      headerSize = 16;
    } else if (size32 === 0) {
      size = left;
    } else {
      size = size32;
    }
    if (size < headerSize) throw new ContainerError(`the '${type}' box at offset ${pos} declares ${size} bytes, less than its own header`);
    if (size > left) throw new ContainerError(`the file is truncated: the '${type}' box at offset ${pos} needs ${size} bytes, ${left} remain`);
    const box = { type, start: pos, headerSize, size };
    if (type === 'ftyp' && pos === 0) {
      if (size > MAX_FTYP_BYTES) throw new ContainerError(`the 'ftyp' box is ${size} bytes, more than ${MAX_FTYP_BYTES}`);
      ftyp = box;
    } else if (type === 'moov') {
      if (size > maxMoovBytes) throw new ContainerError(`the 'moov' box is ${size} bytes, more than the ${maxMoovBytes} accepted`);
      return { ...(ftyp ? { ftyp } : {}), moov: box };
    }
    pos += size;
  }
  throw new ContainerError(reader.size === 0 ? 'the file is empty' : "no 'moov' box (the movie header is missing)");
}

/** Boxes that hold only boxes (ISO/IEC 14496-12 and QuickTime alike): checked before mp4box sees them. */
const CONTAINERS = new Set(['moov', 'trak', 'mdia', 'minf', 'stbl', 'edts', 'mvex']);

/**
 * Checks that every box inside the container boxes of `bytes` (a whole `moov`, read at file offset
 * `fileOffset`) fits in its parent. mp4box only logs a child that runs past its parent and goes on
 * with what it has, so a `moov` cut short would otherwise pass with tracks missing.
 */
function checkBoxTree(bytes: Buffer, from: number, to: number, parent: string, fileOffset: number): void {
  let pos = from;
  while (pos < to) {
    const left = to - pos;
    // QuickTime may end an atom list with a 32-bit zero terminator.
    if (left < 8) {
      if (left === 4 && bytes.readUInt32BE(pos) === 0) return;
      throw new ContainerError(`${left} stray bytes at offset ${fileOffset + pos} inside '${parent}'`);
    }
    const size32 = bytes.readUInt32BE(pos);
    const type = bytes.toString('latin1', pos + 4, pos + 8);
    let headerSize = 8;
    let size = size32;
    if (size32 === 1) {
      if (left < 16) throw new ContainerError(`the '${type}' box at offset ${fileOffset + pos} is cut off inside its 64-bit size`);
      const large = bytes.readBigUInt64BE(pos + 8);
      size = large > BigInt(left) ? left + 1 : Number(large);
      headerSize = 16;
    } else if (size32 === 0) {
      size = left;
    }
    if (size < headerSize || size > left) {
      throw new ContainerError(`the '${type}' box at offset ${fileOffset + pos} does not fit in its '${parent}' box (truncated or corrupt)`);
    }
    if (CONTAINERS.has(type)) checkBoxTree(bytes, pos + headerSize, pos + size, type, fileOffset);
    pos += size;
  }
}

/** An 8-byte (or 16-byte largesize) `mdat` header standing for `length` bytes mp4box must not read. */
function gapHeader(length: number): Buffer {
  if (length <= 0xffffffff) {
    const h = Buffer.alloc(8);
    h.writeUInt32BE(length, 0);
    h.write('mdat', 4, 'latin1');
    return h;
  }
  const h = Buffer.alloc(16);
  h.writeUInt32BE(1, 0);
  h.write('mdat', 4, 'latin1');
  h.writeBigUInt64BE(BigInt(length), 8);
  return h;
}

function toBuffer(bytes: Buffer, fileStart: number): MP4BoxBuffer {
  const ab = new ArrayBuffer(bytes.length);
  new Uint8Array(ab).set(bytes);
  return MP4BoxBuffer.fromArrayBuffer(ab, fileStart);
}

/**
 * Parses `ftyp` + `moov` with mp4box at their real file offsets. mp4box parses a file in order from
 * offset 0 and only jumps over an `mdat`, so each stretch it must not read (the media data, `free`
 * boxes, …: already validated by `findMovieBoxes`) is handed to it as the header of one `mdat`
 * spanning exactly that stretch. Offsets stay true and no media byte is read.
 */
async function parseMovie(reader: RangeReader, boxes: { ftyp?: TopLevelBox; moov: TopLevelBox }): Promise<Movie> {
  const file = createFile();
  let movie: Movie | undefined;
  let failure: string | undefined;
  file.onReady = (info) => {
    movie = info;
  };
  file.onError = (module, message) => {
    failure ??= `${module}: ${message}`;
  };
  let pos = 0;
  try {
    for (const box of boxes.ftyp ? [boxes.ftyp, boxes.moov] : [boxes.moov]) {
      // A gap is at least one whole box (8 bytes or more), so its header always fits in it.
      if (box.start > pos) file.appendBuffer(toBuffer(gapHeader(box.start - pos), pos));
      const bytes = await reader.read(box.start, box.start + box.size - 1);
      if (box.type === 'moov') checkBoxTree(bytes, box.headerSize, bytes.length, 'moov', box.start);
      file.appendBuffer(toBuffer(bytes, box.start));
      pos = box.start + box.size;
    }
    file.flush();
  } catch (e) {
    if (e instanceof ContainerError) throw e;
    throw new ContainerError(`the 'moov' box could not be parsed (${e instanceof Error ? e.message : String(e)})`);
  }
  if (failure) throw new ContainerError(`the 'moov' box could not be parsed (${failure})`);
  if (!movie?.hasMoov) throw new ContainerError("the 'moov' box could not be parsed");
  return movie;
}

const round3 = (n: number) => Math.round(n * 1000) / 1000;

function durationOf(movie: Movie): number | null {
  if (movie.timescale > 0 && movie.duration > 0) return round3(movie.duration / movie.timescale);
  if (movie.fragment_duration && movie.fragment_duration.den > 0 && movie.fragment_duration.num > 0) {
    return round3(movie.fragment_duration.num / movie.fragment_duration.den);
  }
  const tracks = movie.tracks.filter((t) => t.timescale > 0 && t.duration > 0).map((t) => t.duration / t.timescale);
  return tracks.length > 0 ? round3(Math.max(...tracks)) : null;
}

/**
 * Rotation of a track matrix `[a b u; c d v; x y w]` (a, b, c, d in 16.16 fixed point), in
 * degrees: 90 maps (x, y) to (−y, x). Only the angle matters here, so the scale cancels out.
 */
export function rotationOf(matrix: ArrayLike<number>): number {
  const a = matrix[0] ?? 0x10000;
  const b = matrix[1] ?? 0;
  if (a === 0 && b === 0) return 0;
  const degrees = (Math.atan2(b, a) * 180) / Math.PI;
  return ((Math.round(degrees / 90) * 90) % 360 + 360) % 360;
}

function dimensionsOf(track: Track | undefined): { width: number | null; height: number | null } {
  if (!track) return { width: null, height: null };
  // The track header holds the display size (pixel aspect applied); the sample entry the coded size.
  const width = Math.round(track.track_width || track.video?.width || 0);
  const height = Math.round(track.track_height || track.video?.height || 0);
  if (width <= 0 || height <= 0) return { width: null, height: null };
  const quarterTurn = rotationOf(track.matrix) % 180 === 90;
  return quarterTurn ? { width: height, height: width } : { width, height };
}

/** Duration, display size and codecs from an already located `ftyp` + `moov`. */
export async function readMovieMetadata(reader: RangeReader, maxMoovBytes = MAX_MOOV_BYTES): Promise<VideoMetadata> {
  const movie = await parseMovie(reader, await findMovieBoxes(reader, maxMoovBytes));
  const codecs = [...new Set(movie.tracks.map((t) => t.codec).filter((c): c is string => typeof c === 'string' && c.length > 0))];
  return {
    duration: durationOf(movie),
    ...dimensionsOf(movie.videoTracks[0]),
    codecs: codecs.length > 0 ? codecs.join(',') : null,
  };
}


/**
 * Reads the metadata of the MP4/MOV stored under `key` without reading the file whole: a few bytes
 * per top-level box, then `ftyp` and `moov`. Works whether `moov` comes first (faststart) or last.
 * Throws `ContainerError` when the container cannot be parsed.
 */
export async function readVideoMetadata(storage: MediaStorage, key: string, size: number, opts: { maxMoovBytes?: number } = {}): Promise<VideoMetadata> {
  const reader = storageReader(storage, key, size);
  try {
    return await readMovieMetadata(reader, opts.maxMoovBytes);
  } catch (e) {
    if (e instanceof ShortReadError) throw new ContainerError(e.message);
    throw e;
  }
}
