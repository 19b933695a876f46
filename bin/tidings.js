#!/usr/bin/env node
// The `tidings` command: runs the built CLI, or the TypeScript sources through tsx when dist/ is
// missing or older than the sources (a fresh clone before the first `npm start`, or during development).
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { distIsFresh, root } from '../scripts/build-state.js';

if (distIsFresh()) {
  await import(pathToFileURL(join(root, 'dist', 'main.js')).href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import(pathToFileURL(join(root, 'src', 'main.ts')).href);
}
