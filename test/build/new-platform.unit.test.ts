import { execFile } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { namesOf } from '../../scripts/new-platform.js';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '../..');
const doc = await readFile(join(root, 'docs/adding-a-platform.md'), 'utf8');
const scripts = (JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;

const ID = 'acme-social';
const FILES = ['index.ts', 'metadata.ts', 'client.ts', 'errors.ts', `${ID}.simulator.ts`, `${ID}.testkit.ts`, `${ID}.unit.test.ts`, `${ID}.api.test.ts`];

/**
 * Does once what docs/adding-a-platform.md tells a newcomer to do, for a throwaway identifier, on a
 * copy of the project (src/, test/, the web app's generated list, node_modules linked): the
 * scaffold's files exist, the platform is registered everywhere, and what it wrote typechecks.
 */
describe('npm run new:platform (docs/adding-a-platform.md)', () => {
  let copy: string;
  let output: string;

  beforeAll(async () => {
    copy = await mkdtemp(join(tmpdir(), 'tidings-new-platform-'));
    for (const path of ['src', 'test', 'web/src/generated', 'tsconfig.json', 'package.json']) {
      await cp(join(root, path), join(copy, path), { recursive: true });
    }
    await symlink(join(root, 'node_modules'), join(copy, 'node_modules'), 'dir');
    // The command exactly as the page gives it, on the copy.
    ({ stdout: output } = await run('npm', ['run', '--silent', 'new:platform', '--', ID, '--name', 'Acme Social', '--root', copy], { cwd: root }));
  }, 120_000);

  afterAll(async () => {
    if (copy) await rm(copy, { recursive: true, force: true });
  });

  it('the page names the commands the project has', () => {
    expect(doc).toContain('npm run new:platform -- <id> [--name "Display Name"]');
    expect(doc).toContain('npx vitest run --project unit src/platforms/<id>');
    expect(doc).toContain('npx vitest run --project pglite src/platforms/<id>/<id>.api.test.ts');
    for (const [, name] of doc.matchAll(/npm run ([\w:-]+)/g)) expect(scripts, `npm run ${name}`).toHaveProperty(name!);
    for (const file of FILES) expect(doc).toContain(file.replaceAll(ID, '<id>'));
  });

  it('writes the folder with every file of the fixed set', () => {
    for (const file of FILES) expect(existsSync(join(copy, 'src/platforms', ID, file)), file).toBe(true);
    expect(output).toContain(`wrote src/platforms/${ID}/index.ts`);
  });

  it('registers the platform: identifiers, registry, metadata and the web app’s list', async () => {
    const text = (path: string) => readFile(join(copy, path), 'utf8');
    expect(await text('src/platforms/platform.ts')).toMatch(/'x',\n {2}'youtube',\n\] as const/);
    const identifiers = /export const PLATFORM_IDENTIFIERS = \[\n([\s\S]*?)\] as const/.exec(await text('src/platforms/platform.ts'))![1]!.match(/'[a-z0-9-]+'/g)!;
    expect(identifiers).toContain(`'${ID}'`);
    expect(identifiers).toEqual([...identifiers].sort());
    expect(await text('src/platforms/registry.ts')).toContain(`import { createAcmeSocialAdapter } from './${ID}/index.js';`);
    expect(await text('src/platforms/registry.ts')).toContain(`'${ID}': () => createAcmeSocialAdapter(),`);
    expect(await text('src/platforms/metadata.ts')).toContain(`'${ID}': acmeSocialMetadata,`);
    expect(await text('web/src/generated/platforms.ts')).toContain(`'${ID}': 'Acme Social',`);
  });

  it('leaves failing tests that say what to fill in', async () => {
    const unit = await readFile(join(copy, 'src/platforms', ID, `${ID}.unit.test.ts`), 'utf8');
    expect(unit.match(/it\('[^']*: (fill in|replace this test)[^']*'/g)).toHaveLength(4);
    expect(await readFile(join(copy, 'src/platforms', ID, 'client.ts'), 'utf8')).toContain(`${ID}/client.ts getAccount is not written yet`);
  });

  it('refuses an identifier that exists or is not one', async () => {
    const again = await run('npm', ['run', '--silent', 'new:platform', '--', ID, '--root', copy], { cwd: root }).then(
      () => ({ stderr: 'it ran twice' }),
      (e: { stderr: string }) => e,
    );
    expect(again.stderr).toContain(`src/platforms/${ID} exists already`);
    expect(() => namesOf('Acme_Social')).toThrow(/not a platform identifier/);
    expect(namesOf('acme-social-2')).toEqual({ id: 'acme-social-2', name: 'Acme Social 2', camel: 'acmeSocial2', pascal: 'AcmeSocial2', upper: 'ACME_SOCIAL_2' });
  });

  it('what it wrote typechecks with the project (tsc over the new folder, the registry and the metadata)', async () => {
    const files = [...FILES.map((f) => `src/platforms/${ID}/${f}`), 'src/platforms/registry.ts', 'src/platforms/metadata.ts'];
    await writeFile(join(copy, 'tsconfig.scaffold.json'), JSON.stringify({ extends: './tsconfig.json', compilerOptions: { noEmit: true }, include: [], files }));
    const tsc = await run(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.scaffold.json'], { cwd: copy }).catch((e: { stdout: string }) => e);
    // Only what the scaffold wrote or edited is judged here (the rest is the whole project's typecheck).
    const judged = [`src/platforms/${ID}/`, 'src/platforms/registry.ts', 'src/platforms/metadata.ts', 'src/platforms/platform.ts'];
    const errors = tsc.stdout.split('\n').filter((l) => judged.some((p) => l.startsWith(p)));
    expect(errors).toEqual([]);
    expect(tsc.stdout, 'tsc ran on the files').not.toMatch(/^error TS/m);
  }, 240_000);
});
