import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PLATFORM_METADATA } from './metadata.js';
import { PLATFORM_IDENTIFIERS, SHARED_PLATFORM_FOLDERS } from './platform.js';
import { createPlatformRegistry } from './registry.js';
import { renderWebPlatforms, WEB_PLATFORMS_FILE } from './web-list.js';

const folders = readdirSync(new URL('.', import.meta.url), { withFileTypes: true })
  .filter((d) => d.isDirectory() && !SHARED_PLATFORM_FOLDERS.includes(d.name))
  .map((d) => d.name);

/**
 * `PLATFORM_IDENTIFIERS` stays a hand-written `as const` tuple, because the registry and the
 * metadata are `Record`s over its union (a platform missing from either does not compile). These
 * checks tie it to the rest: one folder per identifier, and every list derived from the registry.
 */
describe('the platform lists', () => {
  it('PLATFORM_IDENTIFIERS is sorted, has no duplicate and names exactly the platform folders', () => {
    expect([...PLATFORM_IDENTIFIERS]).toEqual([...new Set(PLATFORM_IDENTIFIERS)].sort());
    expect([...PLATFORM_IDENTIFIERS]).toEqual([...folders].sort());
  });

  it('the registry and the metadata have the identifiers in the same order', () => {
    expect(Object.keys(createPlatformRegistry({ apps: {} }))).toEqual([...PLATFORM_IDENTIFIERS]);
    expect(Object.keys(PLATFORM_METADATA)).toEqual([...PLATFORM_IDENTIFIERS]);
  });

  it('an account tool is marked on exactly the platforms that can choose an account (selectAccount), once', () => {
    for (const [id, adapter] of Object.entries(createPlatformRegistry({ apps: {} }))) {
      const marked = adapter.metadata.tools.filter((t) => t.account);
      expect(marked.length, id).toBe(adapter.selectAccount ? 1 : 0);
    }
  });

  it(`the web app's list (${WEB_PLATFORMS_FILE}) is the one written from the metadata (else: npm run platforms:web)`, () => {
    const committed = readFileSync(new URL(`../../${WEB_PLATFORMS_FILE}`, import.meta.url), 'utf8');
    expect(committed, 'stale: run `npm run platforms:web` and commit the file').toBe(renderWebPlatforms(PLATFORM_METADATA));
  });
});
