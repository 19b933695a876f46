import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { root } from '../../scripts/build-state.js';

// docs/ARCHITECTURE.md stays one true page, and each top folder of src/ has a README with the
// details: every file or folder they name in backticks exists, so a move that forgets the docs fails.

const ARCHITECTURE = 'docs/ARCHITECTURE.md';
const srcFolders = readdirSync(join(root, 'src'), { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => `src/${d.name}`);
const pages = [ARCHITECTURE, 'web/README.md', ...srcFolders.map((f) => `${f}/README.md`)];

/**
 * Backticked names that are a path in the repository: `a/b.ts`, `core/events/`, `x.ts#fn` (a bare
 * file name is read in its context and not checked; build outputs and data folders are not in git).
 */
function namedPaths(text: string): string[] {
  const names = [...text.matchAll(/`([^`\s]+)`/g)].map((m) => m[1]!.replace(/#.*$/, ''));
  return names.filter(
    (n) => /^[\w.-]+(\/[\w.-]*)+$/.test(n) && !/^([A-Z_]+|dist|web\/dist|\.ci\/out)(\/|$)/.test(n),
  );
}

/** Where a name may be relative to: the page's folder, the repository, src/, web/. */
function exists(page: string, name: string): boolean {
  const bases = [dirname(page), '.', 'src', 'web', 'src/platforms', 'src/modules'];
  return bases.some((b) => existsSync(join(root, b, name)));
}

describe('architecture docs', () => {
  it('ARCHITECTURE.md is one page', () => {
    const lines = readFileSync(join(root, ARCHITECTURE), 'utf8').split('\n').length;
    expect(lines).toBeLessThanOrEqual(110);
  });

  it.each(srcFolders)('%s has a README', (folder) => {
    expect(existsSync(join(root, folder, 'README.md')), `${folder}/README.md`).toBe(true);
  });

  it.each(pages.filter((p) => existsSync(join(root, p))))('every path %s names exists', (page) => {
    const missing = namedPaths(readFileSync(join(root, page), 'utf8')).filter((n) => !exists(page, n));
    expect(missing).toEqual([]);
  });
});
