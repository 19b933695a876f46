import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { PLATFORM_IDENTIFIERS, type PlatformIdentifier } from '../../src/platforms/platform.js';
import { createChannel } from '../factories.js';
import type { TestApp, TestOrg } from '../helpers.js';
import { multipart } from '../media.js';
import type { Client } from './client.js';
import { arbitraryFor, type Schema } from './schema-arbitrary.js';

/**
 * The objects generated requests point at: two organisations (the caller, `A`, and `B`, whose
 * objects must stay invisible to A), each with channels on implemented platforms (and one not
 * implemented), client groups, uploaded media and draft or far-future posts. Requests name them
 * through `Ref`s, resolved when the request is sent, so a deleted object is replaced and the same
 * seed makes the same choices even though the ids themselves are new every run.
 */

export type OrgName = 'A' | 'B';
export type PoolKind = 'channel' | 'group' | 'post' | 'postGroup' | 'media' | 'mediaPath';

/** How a reference is spelled when sent: as is, or a near miss of a real id. */
export type RefVariant = 'as-is' | 'upper' | 'trailing-space' | 'trailing-nul' | 'truncated' | 'doubled';

export class Ref {
  constructor(
    readonly kind: PoolKind,
    readonly org: OrgName,
    readonly index: number,
    readonly variant: RefVariant = 'as-is',
  ) {}
  [fc.toStringMethod]() {
    return this.toString();
  }
  toString() {
    return `<${this.org}'s ${this.kind} #${this.index}${this.variant === 'as-is' ? '' : ` ${this.variant}`}>`;
  }
}

/** Platforms whose channels the world holds: chat, microblog, OAuth-page and article platforms. */
export const WORLD_PLATFORMS: PlatformIdentifier[] = ['telegram', 'bluesky', 'mastodon', 'x', 'discord', 'linkedin-page', 'devto'];

const MIN = { channel: 5, group: 2, post: 4, media: 3 } as const;

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'media');
const FAR_FUTURE = '2099-06-01T10:00:00.000Z';

interface Pools {
  channel: string[];
  group: string[];
  post: string[];
  postGroup: string[];
  media: string[];
  mediaPath: string[];
}

const emptyPools = (): Pools => ({ channel: [], group: [], post: [], postGroup: [], media: [], mediaPath: [] });

export interface World {
  orgs: Record<OrgName, TestOrg>;
  /** resolves a reference against the objects alive now */
  resolve(ref: Ref): string;
  /** every id of `org`'s objects (for the leak check) */
  idsOf(org: OrgName): string[];
  /** re-reads what is alive and tops the pools up (after a request that changed something) */
  refresh(): Promise<void>;
  /** tool method names, settings schemas and credential schemas the platforms described */
  toolNames: string[];
  settingsArbitraries: fc.Arbitrary<unknown>[];
  credentialArbitraries: fc.Arbitrary<unknown>[];
  /** the fixture files, for upload bodies */
  files: { name: string; data: Buffer }[];
}

export async function createWorld(t: TestApp, client: Client, opts: { mastodonInstance: string }): Promise<World> {
  const orgs: Record<OrgName, TestOrg> = { A: await t.createOrg('Fuzz A'), B: await t.createOrg('Fuzz B') };
  const pools: Record<OrgName, Pools> = { A: emptyPools(), B: emptyPools() };
  const files = await Promise.all(
    ['photo-48x64.png', 'photo-64x48.jpg', 'photo-80x60.webp', 'still-32x24.gif', 'h264-aac-faststart.mp4'].map(async (name) => ({ name, data: await readFile(join(FIXTURES, name)) })),
  );
  const sql = async (text: string, values: unknown[]) => (await t.deps.database.sql.executeSql(text, values)).rows;
  const api = async (org: OrgName, method: string, url: string, body?: { payload: Buffer; headers: Record<string, string> }) => {
    const res = await client.send({
      method,
      url: `/public/v1${url}`,
      headers: { authorization: orgs[org].apiKey, ...body?.headers },
      body: body?.payload,
      ownConnection: body?.headers['content-type']?.startsWith('multipart/') === true,
    });
    if (res.status >= 300) throw new Error(`fixture ${method} ${url} answered ${res.status}: ${res.text}`);
    return JSON.parse(res.text) as unknown;
  };
  const json = (value: unknown) => ({ payload: Buffer.from(JSON.stringify(value)), headers: { 'content-type': 'application/json' } });

  let made = 0;
  async function topUp(org: OrgName) {
    const p = pools[org];
    while (p.channel.length < MIN.channel) {
      const identifier = WORLD_PLATFORMS[made++ % WORLD_PLATFORMS.length]!;
      const row = await createChannel(t, orgs[org], identifier, {
        name: `${org} ${identifier} ${made}`,
        instanceUrl: identifier === 'mastodon' ? opts.mastodonInstance : null,
        credentials: { token: 'fuzz', accessToken: 'fuzz', refreshToken: 'fuzz', did: 'did:plc:fuzz', handle: 'fuzz.test', chatId: '1' },
      });
      p.channel.push(row.id);
    }
    while (p.group.length < MIN.group) {
      const g = (await api(org, 'POST', '/groups', json({ name: `group ${made++}` }))) as { id: string };
      p.group.push(g.id);
    }
    while (p.media.length < MIN.media) {
      const f = files[made++ % files.length]!;
      const item = (await api(org, 'POST', '/upload', multipart([{ field: 'file', filename: f.name, type: 'application/octet-stream', data: f.data }]))) as { id: string; path: string };
      p.media.push(item.id);
      p.mediaPath.push(item.path);
    }
    while (p.post.length < MIN.post) {
      const n = made++;
      const created = (await api(
        org,
        'POST',
        '/posts',
        json({
          type: 'draft',
          date: FAR_FUTURE,
          posts: [{ integration: { id: p.channel[n % p.channel.length] }, value: [{ content: `fixture ${n}`, image: n % 2 === 0 ? [p.media[0]] : [] }, { content: 'second' }] }],
        }),
      )) as { postId: string; group: string }[];
      for (const c of created) {
        p.post.push(c.postId);
        p.postGroup.push(c.group);
      }
    }
  }

  async function reread(org: OrgName) {
    const id = orgs[org].id;
    const p = pools[org];
    p.channel = (await sql('SELECT id FROM integrations WHERE organization_id = $1 AND deleted_at IS NULL ORDER BY created_at, id', [id])).map((r) => String(r.id));
    p.group = (await sql('SELECT id FROM customers WHERE organization_id = $1 AND deleted_at IS NULL ORDER BY id', [id])).map((r) => String(r.id));
    const posts = await sql('SELECT id, "group" FROM posts WHERE organization_id = $1 AND deleted_at IS NULL ORDER BY created_at, id LIMIT 200', [id]);
    p.post = posts.map((r) => String(r.id));
    p.postGroup = [...new Set(posts.map((r) => String(r.group)))];
    const media = await sql('SELECT id, path FROM media WHERE organization_id = $1 AND deleted_at IS NULL ORDER BY created_at, id LIMIT 200', [id]);
    p.media = media.map((r) => String(r.id));
    p.mediaPath = media.map((r) => String(r.path));
  }

  const refresh = async () => {
    for (const org of ['A', 'B'] as const) {
      await reread(org);
      await topUp(org);
    }
  };
  await refresh();

  // What the platforms say about themselves: tools, settings schemas, credential forms.
  const toolNames = new Set<string>();
  const settingsArbitraries: fc.Arbitrary<unknown>[] = [];
  for (const channel of pools.A.channel) {
    const s = (await api('A', 'GET', `/integration-settings/${channel}`)) as { output: { settings: unknown; tools: { methodName: string }[] } };
    for (const tool of s.output.tools) toolNames.add(tool.methodName);
    if (typeof s.output.settings === 'object' && s.output.settings !== null) {
      try {
        settingsArbitraries.push(arbitraryFor(s.output.settings as Schema, { root: s.output.settings }));
      } catch {
        // a settings schema using keywords the converter does not know: the generic values still go
      }
    }
  }
  const credentialArbitraries: fc.Arbitrary<unknown>[] = [];
  for (const identifier of PLATFORM_IDENTIFIERS) {
    const res = await client.send({ method: 'GET', url: `/public/v1/social/${identifier}`, headers: { authorization: orgs.A.apiKey } });
    if (res.status !== 200) continue;
    const body = JSON.parse(res.text) as { credentials?: Schema };
    if (!body.credentials) continue;
    try {
      credentialArbitraries.push(arbitraryFor(body.credentials, { root: body.credentials }));
    } catch {
      // as above
    }
  }

  return {
    orgs,
    files,
    toolNames: [...toolNames],
    settingsArbitraries,
    credentialArbitraries,
    refresh,
    idsOf: (org) => Object.values(pools[org]).flat() as string[],
    resolve(ref) {
      const pool = pools[ref.org][ref.kind];
      const id = pool.length === 0 ? '00000000-0000-4000-8000-000000000000' : pool[ref.index % pool.length]!;
      switch (ref.variant) {
        case 'as-is':
          return id;
        case 'upper':
          return id.toUpperCase();
        case 'trailing-space':
          return `${id} `;
        case 'trailing-nul':
          return `${id}\u0000`;
        case 'truncated':
          return id.slice(0, -1);
        case 'doubled':
          return id + id;
      }
    },
  };
}

/** A reference to one of the world's objects: mostly A's, sometimes B's, sometimes a near miss. */
export function refArb(kind: PoolKind, opts: { foreign?: boolean; nearMiss?: boolean } = {}): fc.Arbitrary<Ref> {
  const org = opts.foreign === false ? fc.constant<OrgName>('A') : fc.oneof({ weight: 5, arbitrary: fc.constant<OrgName>('A') }, { weight: 1, arbitrary: fc.constant<OrgName>('B') });
  const variant: fc.Arbitrary<RefVariant> = opts.nearMiss
    ? fc.oneof({ weight: 20, arbitrary: fc.constant<RefVariant>('as-is') }, { weight: 1, arbitrary: fc.constantFrom<RefVariant>('upper', 'trailing-space', 'trailing-nul', 'truncated', 'doubled') })
    : fc.constant<RefVariant>('as-is');
  return fc.tuple(org, fc.nat({ max: 999 }), variant).map(([o, i, v]) => new Ref(kind, o, i, v));
}
