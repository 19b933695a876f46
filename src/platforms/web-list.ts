import type { PlatformIdentifier, PlatformMetadata } from './platform.js';

/** Where the web app's platform list is written (relative to the repository root). */
export const WEB_PLATFORMS_FILE = 'web/src/generated/platforms.ts';

/**
 * The web app's platform list, as the text of `web/src/generated/platforms.ts`. The web bundle
 * cannot import the server's metadata (zod schemas, adapters), so what it needs is written out
 * from it: each platform's name in the app and the tool listing the accounts a channel may post
 * as. `npm run platforms:web` writes it; `web-list.unit.test.ts` fails when it is stale.
 */
export function renderWebPlatforms(metadata: Record<PlatformIdentifier, PlatformMetadata>): string {
  const entries = Object.values(metadata);
  const key = (id: string) => (/^[a-z_$][\w$]*$/i.test(id) ? id : `'${id}'`);
  const str = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  const names = entries.map((m) => `  ${key(m.identifier)}: ${str(m.appName ?? m.displayName)},`);
  const accounts = entries.flatMap((m) => {
    const tool = m.tools.find((t) => t.account);
    return tool?.account ? [`  ${key(m.identifier)}: { methodName: ${str(tool.methodName)}, noun: ${str(tool.account.noun)} },`] : [];
  });
  return [
    '// Written by `npm run platforms:web` from the platforms\' metadata (src/platforms/*/metadata.ts): do not edit.',
    '',
    '/** How each platform is named in the app (`appName`, else `displayName`), in identifier order. */',
    'export const GENERATED_PLATFORM_NAMES = {',
    ...names,
    '} as const;',
    '',
    '/** The tool (`POST /integration-trigger/{id}`) listing the accounts a channel may post as, and the word for one. */',
    'export const GENERATED_ACCOUNT_TOOLS = {',
    ...accounts,
    '} as const;',
    '',
  ].join('\n');
}
