// Whether dist/ (the server) and web/dist/ (the calendar app) are missing or older than any of
// their sources (so `npm start` and `tidings` rebuild, or fall back to the TypeScript sources,
// instead of running stale code).
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('..', import.meta.url));

function newestMtime(dir, extensions) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestMtime(p, extensions));
    else if (extensions.some((e) => entry.name.endsWith(e))) newest = Math.max(newest, statSync(p).mtimeMs);
  }
  return newest;
}

export function distIsFresh() {
  const main = join(root, 'dist', 'main.js');
  if (!existsSync(main)) return false;
  const src = join(root, 'src');
  if (!existsSync(src)) return true; // a package without sources: dist is all there is
  return statSync(main).mtimeMs >= newestMtime(src, ['.ts']);
}

/** The app's build is there and newer than web/src, web/public, index.html and the Vite config. */
export function webIsFresh() {
  const index = join(root, 'web', 'dist', 'index.html');
  if (!existsSync(index)) return false;
  const web = join(root, 'web');
  if (!existsSync(join(web, 'src'))) return true;
  const sources = Math.max(
    newestMtime(join(web, 'src'), ['.ts', '.tsx', '.css', '.svg', '.json']),
    existsSync(join(web, 'public')) ? newestMtime(join(web, 'public'), ['']) : 0,
    statSync(join(web, 'index.html')).mtimeMs,
    statSync(join(web, 'vite.config.ts')).mtimeMs,
  );
  return statSync(index).mtimeMs >= sources;
}
