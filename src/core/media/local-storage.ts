import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, openAsBlob } from 'node:fs';
import { mkdir, opendir, readdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { isMediaKey, newMediaKey, type ByteRange, type MediaStorage } from './storage.js';

/** `put` writes `<key>.<12 hex>.tmp` next to its target, then renames it. */
const tempPathOf = (target: string) => `${target}.${randomBytes(6).toString('hex')}.tmp`;
const TEMP_NAME_RE = /^(.+)\.[0-9a-f]{12}\.tmp$/;

const isMissing = (err: unknown) => (err as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';

/** Media files under `<root>` (normally `DATA_DIR/media`): `<yyyy>/<mm>/<random 32 hex>.<ext>`. */
export function createLocalStorage(root: string): MediaStorage & { readonly root: string } {
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

  /**
   * Every file of the key layout, `<root>/<yyyy>/<mm>/<name>`, with its would-be key (valid or not:
   * temp files too). A month folder is read as a stream, never listed whole.
   */
  async function* files(): AsyncGenerator<{ key: string; path: string }> {
    const subdirs = async (dir: string, re: RegExp) => {
      try {
        const entries = await readdir(dir, { withFileTypes: true });
        return entries.filter((e) => e.isDirectory() && re.test(e.name)).map((e) => e.name).sort();
      } catch (err) {
        if (isMissing(err)) return [];
        throw err;
      }
    };
    for (const yyyy of await subdirs(base, /^\d{4}$/)) {
      for (const mm of await subdirs(join(base, yyyy), /^\d{2}$/)) {
        let dir;
        try {
          dir = await opendir(join(base, yyyy, mm));
        } catch (err) {
          if (isMissing(err)) continue;
          throw err;
        }
        for await (const entry of dir) {
          if (entry.isFile()) yield { key: `${yyyy}/${mm}/${entry.name}`, path: join(base, yyyy, mm, entry.name) };
        }
      }
    }
  }

  /** stat, or undefined when the file went away meanwhile */
  async function statFile(path: string) {
    try {
      return await stat(path);
    } catch (err) {
      if (isMissing(err)) return undefined;
      throw err;
    }
  }

  return {
    root: base,
    newKey: newMediaKey,

    // Served by Tidings itself at `${PUBLIC_URL}/media/<key>`.
    publicUrl: () => undefined,

    async put(key, stream, opts = {}) {
      const target = pathOf(key);
      await mkdir(dirname(target), { recursive: true });
      const temp = tempPathOf(target);
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

    // A temp file being written has a fresh mtime; one left by a killed process keeps its last.
    async sweepPartial(olderThan) {
      let removed = 0;
      for await (const f of files()) {
        const m = TEMP_NAME_RE.exec(f.key);
        if (!m || !isMediaKey(m[1]!)) continue;
        const s = await statFile(f.path);
        if (!s || s.mtimeMs >= olderThan.getTime()) continue;
        await rm(f.path, { force: true });
        removed++;
      }
      return removed;
    },
  };
}
