// Whether dist/ is missing or older than any source file (so `npm start` and `tidings` rebuild or
// fall back to the TypeScript sources instead of running stale code).
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('..', import.meta.url));

function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestMtime(p));
    else if (entry.name.endsWith('.ts')) newest = Math.max(newest, statSync(p).mtimeMs);
  }
  return newest;
}

export function distIsFresh() {
  const main = join(root, 'dist', 'main.js');
  if (!existsSync(main)) return false;
  const src = join(root, 'src');
  if (!existsSync(src)) return true; // a package without sources: dist is all there is
  return statSync(main).mtimeMs >= newestMtime(src);
}
