import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { root, webIsFresh } from '../../scripts/build-state.js';
import dbSetup from '../global-setup.js';

/** The browser tier: the app built once (when stale) before any test file, then the PGlite snapshot. */
export default async function setup(project: TestProject) {
  if (!webIsFresh()) {
    const vite = join(root, 'node_modules', 'vite', 'bin', 'vite.js');
    const r = spawnSync(process.execPath, [vite, 'build', '--config', join(root, 'web', 'vite.config.ts'), '--logLevel', 'warn'], { stdio: 'inherit' });
    if (r.status !== 0) throw new Error('vite build of the web app failed');
  }
  if (!existsSync(join(root, 'web', 'dist', 'index.html'))) throw new Error('web/dist/index.html is missing after the build');
  return dbSetup(project);
}
