import { existsSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { root } from '../../scripts/build-state.js';

const readme = readFileSync(join(root, 'README.md'), 'utf8');

/** The variables config.ts reads: the keys of its EnvSchema object. */
function configVariables(): string[] {
  const src = readFileSync(join(root, 'src', 'config.ts'), 'utf8');
  const body = /const EnvSchema = z\.object\(\{\n([\s\S]*?)\n\}\);/.exec(src)![1]!;
  return [...body.matchAll(/^ {2}([A-Z][A-Z0-9_]+):/gm)].map((m) => m[1]!);
}

/** The lines of the README's section `## title`, up to the next `## `. */
function section(title: string): string[] {
  const lines = readme.split('\n');
  const start = lines.indexOf(`## ${title}`);
  expect(start, `README has no "## ${title}"`).toBeGreaterThanOrEqual(0);
  const end = lines.findIndex((l, i) => i > start && l.startsWith('## '));
  return lines.slice(start + 1, end < 0 ? undefined : end);
}

describe('README', () => {
  it('its configuration table is one table (no blank line breaks it into header-less pieces)', () => {
    const lines = section('Configuration');
    const header = lines.findIndex((l) => l.startsWith('| Variable |'));
    expect(header).toBeGreaterThanOrEqual(0);
    expect(lines[header + 1]).toMatch(/^\|---/);
    const end = lines.findIndex((l, i) => i > header && !l.startsWith('|'));
    const after = lines.slice(end);
    expect(after.filter((l) => l.startsWith('| `')), 'rows after the table ended').toEqual([]);
  });

  it('documents every variable config.ts reads, in that table', () => {
    const table = section('Configuration').filter((l) => l.startsWith('| `')).map((l) => l.split(' | ')[0]!);
    const vars = configVariables();
    expect(vars.length).toBeGreaterThan(50);
    const undocumented = vars.filter((v) => !table.some((cell) => cell.includes(`\`${v}\``)));
    expect(undocumented).toEqual([]);
  });

  it('links only to files inside the repository that exist', () => {
    const links = [...readme.matchAll(/\]\(([^)#\s]+)(#[^)]*)?\)/g)].map((m) => m[1]!).filter((l) => !/^[a-z]+:/.test(l));
    expect(links.length).toBeGreaterThan(3);
    for (const link of links) {
      const target = resolve(root, link);
      expect(relative(root, target).startsWith('..'), `${link} points outside the repository`).toBe(false);
      expect(existsSync(target), `${link} does not exist`).toBe(true);
    }
    // file names in backticks that look like paths outside the repository
    expect(readme).not.toMatch(/`\.\.\/shared\//);
  });

  it('its first screen is two commands: one starts the service at an address, one runs the tests', () => {
    const block = /```sh\n([\s\S]*?)```/.exec(readme)![1]!.split('\n').filter((l) => l.trim());
    expect(block).toHaveLength(2);
    expect(block[0]).toMatch(/npm start\s+# .*http:\/\/127\.0\.0\.1:3000/);
    expect(block[1]).toMatch(/^npm test\b/);
  });
});
