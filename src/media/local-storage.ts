import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, openAsBlob } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { isMediaKey, newMediaKey, type ByteRange, type MediaStorage } from './storage.js';

/** Media files under `<root>` (normally `DATA_DIR/media`): `<yyyy>/<mm>/<random 32 hex>.<ext>`. */
export function createLocalStorage(root: string): MediaStorage {
  const base = resolve(root);
  const pathOf = (key: string) => {
    if (!isMediaKey(key)) throw new Error(`invalid media key: ${key}`);
    return join(base, key);
  };
  const statOf = async (key: string) => {
    if (!isMediaKey(key)) return undefined;
    try {
      const s = await stat(pathOf(key));
      return s.isFile() ? { size: s.size } : undefined;
    } catch {
      return undefined;
    }
  };
  return {
    newKey: newMediaKey,

    // Served by Tidings itself at `${PUBLIC_URL}/media/<key>`.
    publicUrl: () => undefined,

    async put(key, stream, opts = {}) {
      const target = pathOf(key);
      await mkdir(dirname(target), { recursive: true });
      const temp = `${target}.${randomBytes(6).toString('hex')}.tmp`;
      let size = 0;
      const counter = new Transform({
        transform(chunk: Buffer, _enc, done) {
          size += chunk.length;
          done(null, chunk);
        },
      });
      try {
        await pipeline(stream, counter, createWriteStream(temp, { flags: 'wx' }), opts.signal ? { signal: opts.signal } : {});
        await rename(temp, target);
      } catch (e) {
        await rm(temp, { force: true });
        throw e;
      }
      return { size };
    },

    async open(key, range?: ByteRange) {
      const s = await statOf(key);
      if (!s) return undefined;
      const stream: Readable = createReadStream(pathOf(key), range ? { start: range.start, end: range.end } : {});
      return { stream, size: s.size };
    },

    stat: statOf,

    async delete(key) {
      if (!isMediaKey(key)) return;
      await rm(pathOf(key), { force: true });
    },

    async blob(key, type) {
      return openAsBlob(pathOf(key), { type });
    },
  };
}
