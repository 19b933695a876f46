/**
 * `npm run new:platform -- <id> [--name "Display Name"] [--root DIR]`
 *
 * Writes `src/platforms/<id>/` with every file a platform folder has (index.ts, metadata.ts,
 * client.ts, errors.ts, <id>.simulator.ts, <id>.testkit.ts, <id>.unit.test.ts, <id>.api.test.ts),
 * registers the platform (PLATFORM_IDENTIFIERS, the registry, the metadata, the web app's list)
 * and leaves failing tests that say what to fill in. The project typechecks as soon as it is run.
 * `--root` runs it on another checkout (the scaffold's own test runs it on a copy).
 * docs/adding-a-platform.md walks through what to fill in.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type * as MetadataModule from '../src/platforms/metadata.js';
import type * as WebListModule from '../src/platforms/web-list.js';

export interface PlatformNames {
  /** `acme-social`: the folder, the API identifier */
  id: string;
  /** `Acme Social`: `displayName` */
  name: string;
  /** `acmeSocial`: variables (`acmeSocialMetadata`) */
  camel: string;
  /** `AcmeSocial`: types and factories (`createAcmeSocialAdapter`) */
  pascal: string;
  /** `ACME_SOCIAL`: constants (`ACME_SOCIAL_API`) */
  upper: string;
}

export function namesOf(id: string, name?: string): PlatformNames {
  if (!/^[a-z][a-z0-9]*(-[a-z0-9]+)*$/.test(id)) throw new Error(`"${id}" is not a platform identifier: lower-case letters and digits, words joined by "-" (e.g. acme-social)`);
  if (name !== undefined && /['"`\\$]/.test(name)) throw new Error(`--name "${name}": no quotes, backslashes or $ (it is written into source strings)`);
  const words = id.split('-');
  const cap = (w: string) => w.charAt(0).toUpperCase() + w.slice(1);
  return {
    id,
    name: name?.trim() || words.map(cap).join(' '),
    camel: words[0]! + words.slice(1).map(cap).join(''),
    pascal: words.map(cap).join(''),
    upper: words.join('_').toUpperCase(),
  };
}

const q = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
/** An object key as the source writes it (`x`, `'linkedin-page'`). */
const key = (id: string) => (/^[a-z_$][\w$]*$/i.test(id) ? id : q(id));

/** The text of each file of the new folder, by file name. */
export function platformFiles(n: PlatformNames): Record<string, string> {
  const { id, name, camel, pascal, upper } = n;
  const notWritten = (fn: string, what: string) => `throw new Error(\`${id}/client.ts ${fn} is not written yet: ${what}\`);`;
  return {
    'metadata.ts': `import { z } from 'zod';
import { defineMetadata, noMedia } from '../common/define-metadata.js';
import { requiredSecret } from '../common/schemas.js';

/**
 * ${name} post settings (\`settings\` of \`POST /posts\`, rendered by \`GET /integration-settings\`).
 * TO FILL IN: the options a post on ${name} takes (a community, a title…), or leave \`settings\`
 * out of the metadata when it takes none.
 */
export const ${pascal}SettingsSchema = z.object({});

/**
 * \`POST /social/${id}\`: what a user types to connect a channel. TO FILL IN: the platform's real
 * fields (an OAuth platform has none: \`authKind: 'oauth2'\` with \`oauth\` and \`deploymentApp\`,
 * and \`beginConnect\`/\`completeConnect\` in index.ts instead of \`connectWithCredentials\`).
 */
export const ${pascal}CredentialsSchema = z.object({
  apiKey: requiredSecret('${name} API key'),
});

/**
 * TO FILL IN: ${name}'s real limits (text length and counting, media, threads, concurrency).
 * \`defineMetadata\` fills in what is left out (no threads, no tools, no analytics, one publish at a
 * time per channel: METADATA_DEFAULTS); media from its presets: \`noMedia\`, \`imagesOnly(max)\`,
 * \`anyAttachments(max)\` or \`mediaRules({ image, video })\`.
 */
export const ${camel}Metadata = defineMetadata({
  identifier: ${q(id)},
  displayName: ${q(name)},
  authKind: 'credentials',
  text: { maxLength: 500, counting: 'characters' },
  media: noMedia,
  concurrency: { perPlatform: 2 },
  settings: ${pascal}SettingsSchema,
  credentials: ${pascal}CredentialsSchema,
});
`,
    'errors.ts': `import { errorFromResponse } from '../http-errors.js';
import type { PlatformError, PlatformResponse } from '../platform.js';

/**
 * ${name}'s answers as one \`PlatformError\` kind each (auth_expired, reconnect_required,
 * rate_limited with retryAfterSeconds, transient, rejected with ${name}'s own message,
 * unsupported); undefined when the answer is a success. TO FILL IN: ${name}'s own error shape —
 * many platforms answer HTTP 200 with an error body — until then, the generic HTTP mapping.
 */
export function ${camel}Error(res: PlatformResponse, now = Date.now()): PlatformError | undefined {
  return errorFromResponse(res, now);
}
`,
    'client.ts': `import { z } from 'zod';
import type { OperationContext } from '../platform.js';
import { ${camel}Error } from './errors.js';

/**
 * ${name}'s API as the adapter uses it: one function per request, each answer checked by
 * \`${camel}Error\`. Tests reach the simulator instead through the origin map (PLATFORM_ORIGINS).
 * TO FILL IN: the real origin and the requests below.
 */
export const ${upper}_API = 'https://api.${id}.example';

/** What is stored for a connected channel, read in every operation with \`readCredentials\`. */
export const ${pascal}StoredCredentialsSchema = z.object({
  apiKey: z.string().min(1),
  accountId: z.string().min(1),
});
export type ${pascal}StoredCredentials = z.output<typeof ${pascal}StoredCredentialsSchema>;

export interface ${pascal}Account {
  id: string;
  name: string;
  handle: string | null;
  picture: string | null;
}

export type Ctx = Pick<OperationContext, 'http' | 'clock'>;

/** One request with the channel's key; the classified error when ${name} refuses it. */
export async function call<T>(ctx: Ctx, apiKey: string, method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<T> {
  const res = await ctx.http.request({
    method,
    url: \`\${${upper}_API}\${path}\`,
    headers: { authorization: \`Bearer \${apiKey}\`, accept: 'application/json' },
    ...(body !== undefined ? { body } : {}),
  });
  const err = ${camel}Error(res, ctx.clock.now());
  if (err) throw err;
  return res.body as T;
}

/** The account the key belongs to (checked when connecting). */
export async function getAccount(_ctx: Ctx, _apiKey: string): Promise<${pascal}Account> {
  ${notWritten('getAccount', `ask ${name} who the key belongs to (and add that route to ${id}.simulator.ts)`)}
}

/** Creates a post; its id and public URL. Not idempotent unless ${name} takes an idempotency key. */
export async function createPost(_ctx: Ctx, _apiKey: string, _text: string): Promise<{ id: string; url: string }> {
  ${notWritten('createPost', `send the post to ${name} (and add that route to ${id}.simulator.ts)`)}
}
`,
    'index.ts': `import { readCredentials } from '../common/credentials.js';
import { htmlToText } from '../common/html.js';
import { PlatformError, type ConnectedAccount, type PlatformAdapter, type PublishResult } from '../platform.js';
import { createPost, getAccount, ${pascal}StoredCredentialsSchema, type ${pascal}StoredCredentials } from './client.js';
import { ${pascal}CredentialsSchema, ${camel}Metadata } from './metadata.js';

/**
 * Creates the ${name} adapter. TO FILL IN: one sentence on how it connects and publishes, and the
 * operations ${name} allows (refresh, checkPublish, findRecent for reconciliation, analytics, tools).
 */
export function create${pascal}Adapter(): PlatformAdapter {
  return {
    metadata: ${camel}Metadata,

    async connectWithCredentials(input, ctx): Promise<ConnectedAccount> {
      const { apiKey } = ${pascal}CredentialsSchema.parse(input);
      const account = await getAccount(ctx, apiKey);
      return {
        internalId: account.id,
        name: account.name,
        profile: account.handle,
        picture: account.picture,
        credentials: { apiKey, accountId: account.id } satisfies ${pascal}StoredCredentials,
        expiresAt: null,
      };
    },

    validate() {
      return [];
    },

    async publish({ item }, ctx): Promise<PublishResult> {
      const c = readCredentials(ctx, ${pascal}StoredCredentialsSchema, ${q(name)});
      if (item.media.length > 0) throw new PlatformError('unsupported', '${name} takes text only in this version');
      const post = await createPost(ctx, c.apiKey, htmlToText(item.content).trim());
      return { status: 'published', id: post.id, url: post.url };
    },
  };
}
`,
    [`${id}.simulator.ts`]: `import { startSimulator, type InjectedKind, type Simulator } from '../../../test/simulators/harness.js';

/**
 * A simulator of ${name}'s API: a small HTTP server that answers as ${name} does — its paths,
 * bodies, ids, error shapes and rate-limit headers — for the requests of client.ts.
 * TO FILL IN: one route per request of client.ts (\`app.get('/…')\`), and \`injectKind\` with
 * ${name}'s real error answers.
 */
export interface ${pascal}PostRecord {
  id: string;
  accountId: string;
  text: string;
}

export interface ${pascal}Simulator extends Simulator {
  addAccount(apiKey: string, account: { id: string; name: string; handle: string }): void;
  posts: ${pascal}PostRecord[];
  injectKind(kind: InjectedKind): void;
}

export async function start${pascal}Simulator(): Promise<${pascal}Simulator> {
  const accounts = new Map<string, { id: string; name: string; handle: string }>();
  const posts: ${pascal}PostRecord[] = [];
  const sim = await startSimulator(() => {
    // the routes of ${name}'s API go here
  });
  return Object.assign(sim, {
    posts,
    addAccount: (apiKey: string, account: { id: string; name: string; handle: string }) => void accounts.set(apiKey, account),
    injectKind(kind: InjectedKind) {
      // Generic answers until ${name}'s own shapes are written here.
      const status = { auth_expired: 401, revoked: 401, rate_limited: 429, server_error: 502, rejected: 400, error_in_200: 200 }[kind];
      sim.inject({ status, body: { error: kind }, ...(kind === 'rate_limited' ? { headers: { 'retry-after': '30' } } : {}) });
    },
  });
}
`,
    [`${id}.testkit.ts`]: `import { simulatorOrigins, withSimulator, type TestCtx } from '../common/platform.testkit.js';
import { ${upper}_API } from './client.js';
import { start${pascal}Simulator, type ${pascal}Simulator } from './${id}.simulator.js';

/** Shared fixtures of the ${name} tests: an account and its key. */

export const API_KEY = '${id}-test-key';
export const ACCOUNT = { id: '1001', name: 'Acme', handle: 'acme' };

export { published, withCreds, type TestCtx } from '../common/platform.testkit.js';
export const { originsFor, platformOriginsFor } = simulatorOrigins([${upper}_API]);

/** A simulator that knows the account. */
export async function ${camel}Simulator(): Promise<${pascal}Simulator> {
  const sim = await start${pascal}Simulator();
  sim.addAccount(API_KEY, ACCOUNT);
  return sim;
}

/** Runs \`fn\` against a fresh simulator, with an HTTP client mapped to it. */
export const with${pascal} = <T>(fn: (sim: ${pascal}Simulator, ctx: TestCtx) => Promise<T>) => withSimulator({ start: ${camel}Simulator, origins: originsFor }, fn);
`,
    [`${id}.unit.test.ts`]: `import { describe, expect, it } from 'vitest';
import type { PlatformError } from '../platform.js';
import { ${camel}Error } from './errors.js';
import { create${pascal}Adapter } from './index.js';
import { ACCOUNT, API_KEY, published, with${pascal}, withCreds } from './${id}.testkit.js';

/**
 * ${name} against its simulator. Written by \`npm run new:platform\`: each test says what to fill in
 * and fails until it is (docs/adding-a-platform.md).
 */

const adapter = create${pascal}Adapter();

describe('${id}', () => {
  it('connects an account: fill in client.ts getAccount and its route in ${id}.simulator.ts', async () => {
    await with${pascal}(async (_sim, ctx) => {
      const account = await adapter.connectWithCredentials!({ apiKey: API_KEY }, ctx);
      expect(account).toMatchObject({ internalId: ACCOUNT.id, name: ACCOUNT.name, profile: ACCOUNT.handle });
    });
  });

  it('publishes a text post: fill in client.ts createPost and its route in ${id}.simulator.ts', async () => {
    await with${pascal}(async (sim, ctx) => {
      const c = withCreds(ctx, await adapter.connectWithCredentials!({ apiKey: API_KEY }, ctx));
      const r = published(await adapter.publish({ item: { content: '<p>Hello</p>', media: [] }, settings: {}, idempotencyKey: 'k1' }, c));
      expect(sim.posts).toEqual([{ id: r.id, accountId: ACCOUNT.id, text: 'Hello' }]);
    });
  });

  it('classifies the error answers of ${name}: fill in errors.ts and this table', () => {
    const cases: [status: number, body: unknown, kind: PlatformError['kind']][] = [];
    expect(cases.length, 'write one row per error answer ${name} documents').toBeGreaterThan(0);
    for (const [status, body, kind] of cases) expect(${camel}Error({ status, headers: {}, body })?.kind).toBe(kind);
  });

  it('passes the shared contract: replace this test by runPlatformContract (test/platform-contract.ts) once connect and publish work', () => {
    throw new Error('run the shared contract here: runPlatformContract({ name, adapter, errorsIn200, setup }) — see src/platforms/telegram/telegram.unit.test.ts');
  });
});
`,
    [`${id}.api.test.ts`]: `import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platformApi } from '../../../test/platform-api-kit.js';
import type { ${pascal}Simulator } from './${id}.simulator.js';
import { ACCOUNT, API_KEY, ${camel}Simulator, platformOriginsFor } from './${id}.testkit.js';

/**
 * ${name} end to end through the HTTP API of a real app with its worker: the credentials form
 * (\`POST /social/${id}\`), then a post made with \`POST /posts\` that the worker publishes to the
 * simulator. Written by \`npm run new:platform\`: fails until client.ts and the simulator are filled in.
 */

const api = platformApi(${q(id)});
let sim: ${pascal}Simulator;
let channelId: string;

beforeAll(async () => {
  sim = await ${camel}Simulator();
  await api.start({ env: { PLATFORM_ORIGINS: platformOriginsFor(sim) } });
});

afterAll(async () => {
  await api.close();
  await sim?.close();
});

describe('${id} through the API', () => {
  it('connects with the credentials form: fill in client.ts getAccount and its simulator route', async () => {
    const res = await api.connectForm({ apiKey: API_KEY });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ identifier: ${q(id)}, name: ACCOUNT.name, profile: ACCOUNT.handle });
    channelId = res.json<{ id: string }>().id;
  });

  it('publishes a post made with POST /posts: fill in client.ts createPost and its simulator route', async () => {
    expect(channelId, 'the channel of the test above').toBeDefined();
    const post = await api.publish(channelId, {}, [{ content: '<p>Hello from Tidings</p>' }]);
    expect(sim.posts.map((p) => p.text)).toEqual(['Hello from Tidings']);
    expect(post.releaseId).toBe(sim.posts[0]!.id);
  });
});
`,
  };
}

/** Inserts `line` into the sorted run of lines between `start` and the `end` line that follows it. */
function insertSorted(text: string, start: string, end: string, line: string, sortKey: (l: string) => string): string {
  const from = text.indexOf(start);
  if (from === -1) throw new Error(`cannot find "${start.trim()}"`);
  const bodyStart = from + start.length;
  const to = text.indexOf(end, bodyStart);
  if (to === -1) throw new Error(`cannot find the end of "${start.trim()}"`);
  const lines = text.slice(bodyStart, to).split('\n').filter((l) => l.trim() !== '');
  const at = lines.findIndex((l) => sortKey(l) > sortKey(line));
  lines.splice(at === -1 ? lines.length : at, 0, line);
  return `${text.slice(0, bodyStart)}${lines.join('\n')}\n${text.slice(to)}`;
}

const idOfEntry = (l: string) => /^\s*'?([a-z0-9-]+)'?[:,]/.exec(l)?.[1] ?? l;

/** Registers the platform: PLATFORM_IDENTIFIERS, the registry's factories and the metadata record. */
export async function register(root: string, n: PlatformNames): Promise<void> {
  const edit = async (path: string, change: (text: string) => string) => {
    const file = resolve(root, path);
    await writeFile(file, change(await readFile(file, 'utf8')));
  };
  await edit('src/platforms/platform.ts', (t) => insertSorted(t, 'export const PLATFORM_IDENTIFIERS = [\n', '] as const;', `  ${q(n.id)},`, idOfEntry));
  await edit('src/platforms/registry.ts', (t) => {
    const imports = [...t.matchAll(/^import \{ create\w+Adapter \} from '\.\/[a-z0-9-]+\/index\.js';\n/gm)];
    const last = imports.at(-1);
    if (!last) throw new Error('registry.ts: no adapter import found');
    const at = last.index + last[0].length;
    const withImport = `${t.slice(0, at)}import { create${n.pascal}Adapter } from './${n.id}/index.js';\n${t.slice(at)}`;
    return insertSorted(withImport, 'const FACTORIES: Factories = {\n', '};', `  ${key(n.id)}: () => create${n.pascal}Adapter(),`, () => '');
  });
  await edit('src/platforms/metadata.ts', (t) => {
    const imports = [...t.matchAll(/^import \{ \w+Metadata \} from '\.\/[a-z0-9-]+\/metadata\.js';\n/gm)];
    const last = imports.at(-1);
    if (!last) throw new Error('metadata.ts: no metadata import found');
    const at = last.index + last[0].length;
    const withImport = `${t.slice(0, at)}import { ${n.camel}Metadata } from './${n.id}/metadata.js';\n${t.slice(at)}`;
    return insertSorted(withImport, 'export const PLATFORM_METADATA: Record<PlatformIdentifier, PlatformMetadata> = {\n', '};', `  ${key(n.id)}: ${n.camel}Metadata,`, idOfEntry);
  });
}

/** Writes the folder, registers it and rewrites the web app's list. Returns the paths written. */
export async function scaffold(root: string, id: string, name?: string): Promise<string[]> {
  const n = namesOf(id, name);
  const dir = resolve(root, 'src/platforms', id);
  if (existsSync(dir)) throw new Error(`src/platforms/${id} exists already`);
  await mkdir(dir);
  const files = platformFiles(n);
  for (const [file, text] of Object.entries(files)) await writeFile(resolve(dir, file), text);
  await register(root, n);
  // The web app's list is written from the metadata of this checkout, the new platform's included.
  const load = <T>(path: string) => import(pathToFileURL(resolve(root, path)).href) as Promise<T>;
  const { PLATFORM_METADATA } = await load<typeof MetadataModule>('src/platforms/metadata.ts');
  const { renderWebPlatforms, WEB_PLATFORMS_FILE } = await load<typeof WebListModule>('src/platforms/web-list.ts');
  await writeFile(resolve(root, WEB_PLATFORMS_FILE), renderWebPlatforms(PLATFORM_METADATA));
  return [...Object.keys(files).map((f) => `src/platforms/${id}/${f}`), 'src/platforms/platform.ts', 'src/platforms/registry.ts', 'src/platforms/metadata.ts', WEB_PLATFORMS_FILE];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { name: { type: 'string' }, root: { type: 'string' } } });
  const [id] = positionals;
  if (!id) {
    console.error('usage: npm run new:platform -- <id> [--name "Display Name"] [--root DIR]');
    process.exit(2);
  }
  const root = resolve(values.root ?? resolve(import.meta.dirname, '..'));
  try {
    const written = await scaffold(root, id, values.name);
    console.log(`${written.map((p) => `wrote ${p}`).join('\n')}\n\nNext: fill in what the failing tests name — npx vitest run --project unit src/platforms/${id} (docs/adding-a-platform.md)`);
  } catch (e) {
    console.error(e instanceof Error ? e.message : e);
    process.exit(1);
  }
}
