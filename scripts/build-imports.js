// What the production build may import: Node's own modules, its own files and the packages in
// `dependencies`. A dev dependency imported from dist/ (a test library such as vitest, a simulator's
// helper) breaks `npm ci --omit=dev` installs and ships test code, so `.ci/run` runs this on dist/
// after `npm run build`, and a unit test runs it on the sources tsconfig.build.json compiles.
//   node scripts/build-imports.js [dir]   (default dist/): exit 1 listing each offending import
import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { root } from './build-state.js';

const STATIC = /(?:^|[;}\n])\s*(import|export)\s+(type\s+)?(?:[^'";]*?\sfrom\s*)?['"]([^'"\n]+)['"]/g;
const DYNAMIC = /\bimport\(\s*['"]([^'"\n]+)['"]\s*\)/g;

/** The package a bare specifier names (`@scope/pkg/sub` → `@scope/pkg`), or undefined for files and Node's modules. */
export function packageOf(specifier) {
  if (specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('node:') || specifier.startsWith('#')) return undefined;
  const parts = specifier.split('/');
  const name = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
  return builtinModules.includes(name) ? undefined : name;
}

/** The packages one module's text imports at run time (`import type` / `export type` are erased by the compiler). */
export function runtimeImports(text) {
  const found = new Set();
  for (const m of text.matchAll(STATIC)) if (!m[2]) found.add(m[3]);
  for (const m of text.matchAll(DYNAMIC)) found.add(m[1]);
  return [...found].map(packageOf).filter((p) => p !== undefined);
}

/** Each (file, package) where a file imports a package that is not a production dependency. */
export function findForbiddenImports(files, allowed) {
  const out = [];
  for (const file of files) {
    for (const pkg of runtimeImports(readFileSync(file, 'utf8'))) if (!allowed.has(pkg)) out.push({ file, pkg });
  }
  return out;
}

export function productionDependencies() {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  return new Set(Object.keys(pkg.dependencies ?? {}));
}

function jsFiles(dir) {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /\.(m?js)$/.test(e.name))
    .map((e) => join(e.parentPath, e.name));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const dir = process.argv[2] ?? join(root, 'dist');
  const bad = findForbiddenImports(jsFiles(dir), productionDependencies());
  for (const { file, pkg } of bad) process.stderr.write(`${relative(root, file)} imports '${pkg}', which is not in package.json's dependencies\n`);
  if (bad.length) process.exit(1);
  process.stdout.write(`build imports: ${dir} imports production dependencies only\n`);
}
