/**
 * `npm run platforms:web [-- --root DIR]`: writes the web app's platform list
 * (`web/src/generated/platforms.ts`) from the platforms' metadata of the checkout at DIR (default:
 * this one). Run it after adding a platform or changing a display name or an account tool.
 */
import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type * as MetadataModule from '../src/platforms/metadata.js';
import type * as WebListModule from '../src/platforms/web-list.js';

const { values } = parseArgs({ options: { root: { type: 'string' } } });
const root = resolve(values.root ?? resolve(import.meta.dirname, '..'));
const load = <T>(path: string) => import(pathToFileURL(resolve(root, path)).href) as Promise<T>;
const { PLATFORM_METADATA } = await load<typeof MetadataModule>('src/platforms/metadata.ts');
const { renderWebPlatforms, WEB_PLATFORMS_FILE } = await load<typeof WebListModule>('src/platforms/web-list.ts');
await writeFile(resolve(root, WEB_PLATFORMS_FILE), renderWebPlatforms(PLATFORM_METADATA));
console.log(`wrote ${WEB_PLATFORMS_FILE} (${Object.keys(PLATFORM_METADATA).length} platforms)`);
