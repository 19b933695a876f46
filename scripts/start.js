// `npm start`: build what is missing or stale (the server with tsc, the calendar app with Vite),
// then `tidings serve` (arguments after `--` are passed on).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { distIsFresh, root, webIsFresh } from './build-state.js';

if (!distIsFresh()) {
  process.stderr.write('Building Tidings (tsc)…\n');
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const r = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
if (!webIsFresh()) {
  const vite = join(root, 'node_modules', 'vite', 'bin', 'vite.js');
  if (existsSync(vite)) {
    process.stderr.write('Building the calendar app (vite)…\n');
    const r = spawnSync(process.execPath, [vite, 'build', '--config', join(root, 'web', 'vite.config.ts'), '--logLevel', 'warn'], { stdio: 'inherit' });
    if (r.status !== 0) process.exit(r.status ?? 1);
  } else if (!existsSync(join(root, 'web', 'dist', 'index.html'))) {
    // installed without dev dependencies and without a built app: the API still runs
    process.stderr.write('The calendar app is not built and Vite is not installed (npm ci installs it); serving the API only.\n');
  }
}
process.argv = [process.argv[0], join(root, 'dist', 'main.js'), 'serve', ...process.argv.slice(2)];
await import(pathToFileURL(join(root, 'dist', 'main.js')).href);
