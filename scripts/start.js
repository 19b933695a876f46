// `npm start`: build if needed, then `tidings serve` (arguments after `--` are passed on).
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { distIsFresh, root } from './build-state.js';

if (!distIsFresh()) {
  process.stderr.write('Building Tidings (tsc)…\n');
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const r = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
process.argv = [process.argv[0], join(root, 'dist', 'main.js'), 'serve', ...process.argv.slice(2)];
await import(pathToFileURL(join(root, 'dist', 'main.js')).href);
