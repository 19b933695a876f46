import { existsSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SHARED_PLATFORM_FOLDERS } from './platform.js';

/**
 * Every platform folder has the same files, each with one role (docs/adding-a-platform.md), so a
 * newcomer finds the requests in `client.ts` and the error mapping in `errors.ts` whichever folder
 * they open. `common/` (what platforms share) and `sandbox/` are not platforms. `npm run new:platform`
 * writes this set.
 */
const roles = (id: string) => ['index.ts', 'metadata.ts', 'client.ts', 'errors.ts', `${id}.simulator.ts`, `${id}.testkit.ts`, `${id}.unit.test.ts`, `${id}.api.test.ts`];

const dir = new URL('.', import.meta.url);
const folders = readdirSync(dir, { withFileTypes: true })
  .filter((d) => d.isDirectory() && !SHARED_PLATFORM_FOLDERS.includes(d.name))
  .map((d) => d.name)
  .sort();

describe('the platform folders', () => {
  it('are there (one per platform)', () => {
    expect(folders.length).toBeGreaterThanOrEqual(34);
  });

  it.each(folders)('%s has the fixed file set', (id) => {
    const missing = roles(id).filter((file) => !existsSync(new URL(`${id}/${file}`, dir)));
    expect(missing, `src/platforms/${id}/ lacks`).toEqual([]);
  });
});
