import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { createLocalStorage } from './local-storage.js';
import { mediaStorageContract } from './storage.contract.js';

mediaStorageContract('local files', async () => {
  const root = await mkdtemp(join(tmpdir(), 'tidings-local-storage-'));
  return {
    storage: createLocalStorage(root),
    // every file, temp files included
    async leftovers() {
      const entries = await readdir(root, { recursive: true, withFileTypes: true });
      return entries.filter((e) => e.isFile()).map((e) => relative(root, join(e.parentPath, e.name)));
    },
    close: () => rm(root, { recursive: true, force: true }),
  };
});
