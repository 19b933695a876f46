import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventRepository, EventUtils, type Event as RelayEvent, type Filter as RelayFilter, type IncomingMessage } from '@nostr-relay/common';
import { NostrRelay } from '@nostr-relay/core';
import { and, eq } from 'drizzle-orm';
import sharp from 'sharp';
import * as nip10 from 'nostr-tools/nip10';
import * as nip19 from 'nostr-tools/nip19';
import { getPublicKey, verifyEvent } from 'nostr-tools/pure';
import type { Event as NostrEvent } from 'nostr-tools';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import { integrations, posts } from '../../db/schema/index.js';
import type { ManualClock } from '../../lib/clock.js';
import { realtimeManualClock, releaseDueJobs, waitFor } from '../../../test/factories.js';
import { buildTestApp, call, expectError, type TestApp, type TestOrg } from '../../../test/helpers.js';
import { uploadMedia } from '../../../test/media.js';
import { relayUrl, SECRET_HEX, sha, startRelays, type Relays } from './nostr.testkit.js';

/**
 * Nostr end to end through the HTTP API of a real app with its worker: the credentials form
 * (`POST /social/nostr`: a bad key is a 400 naming `privateKey`, relays out of reach a 400 naming
 * `relays`, nothing stored), then posts made through `POST /posts` go to several relays: two relay
 * simulators and a relay built on `@nostr-relay/core` (software we did not write), from which the
 * notes are read back with nostr-tools and their signatures verified. A relay's refusal is kept as
 * the published post's note; a crash after signing, before any relay answered, is reconciled by
 * the publisher without a second event.
 */

const PUBLIC_URL = 'https://tidings.example';
const THIRD_PARTY = 'wss://third-party.relay.example';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A minimal in-memory EventRepository for @nostr-relay/core. */
class MemoryRepository extends EventRepository {
  readonly events = new Map<string, RelayEvent>();
  isSearchSupported() {
    return false;
  }
  upsert(event: RelayEvent) {
    const isDuplicate = this.events.has(event.id);
    this.events.set(event.id, event);
    return { isDuplicate };
  }
  find(filter: RelayFilter) {
    const hits = [...this.events.values()].filter((e) => EventUtils.isMatchingFilter(e, filter)).sort((a, b) => b.created_at - a.created_at);
    return hits.slice(0, filter.limit ?? hits.length);
  }
  destroy() {
    return Promise.resolve();
  }
}

/** A @nostr-relay/core relay behind a `ws` server on loopback. */
async function startThirdPartyRelay() {
  const repository = new MemoryRepository();
  const relay = new NostrRelay(repository);
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  wss.on('connection', (ws) => {
    relay.handleConnection(ws);
    ws.on('message', (data) => {
      try {
        void relay.handleMessage(ws, JSON.parse((data as Buffer).toString('utf8')) as IncomingMessage);
      } catch {
        ws.send(JSON.stringify(['NOTICE', 'invalid: not JSON']));
      }
    });
    ws.on('close', () => relay.handleDisconnect(ws));
  });
  await new Promise((r) => wss.once('listening', r));
  const { port } = wss.address() as AddressInfo;
  return {
    url: `ws://127.0.0.1:${port}`,
    repository,
    close: async () => {
      for (const c of wss.clients) c.terminate();
      await new Promise((r) => wss.close(r));
      await relay.destroy();
    },
  };
}

/** Reads events from a relay with a raw NIP-01 REQ until EOSE. */
async function readBack(url: string, filter: Record<string, unknown>): Promise<NostrEvent[]> {
  const ws = new WebSocket(url);
  await new Promise((r, j) => ws.once('open', r).once('error', j));
  const out: NostrEvent[] = [];
  try {
    return await new Promise<NostrEvent[]>((resolve) => {
      ws.on('message', (d) => {
        const m = JSON.parse((d as Buffer).toString('utf8')) as unknown[];
        if (m[0] === 'EVENT' && m[1] === 'read') out.push(m[2] as NostrEvent);
        if (m[0] === 'EOSE' && m[1] === 'read') resolve(out);
      });
      ws.send(JSON.stringify(['REQ', 'read', filter]));
    });
  } finally {
    ws.terminate();
  }
}

let t: TestApp;
let clock: ManualClock;
let org: TestOrg;
let relays: Relays;
let third: Awaited<ReturnType<typeof startThirdPartyRelay>>;
let dataDir: string;
let channelId: string;
const mediaOrigins: Record<string, string> = {};
const PUBKEY = getPublicKey(new Uint8Array(Buffer.from(SECRET_HEX, 'hex')));

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'tidings-nostr-'));
  relays = await startRelays(['alpha', 'beta'], { mediaOrigins });
  third = await startThirdPartyRelay();
  clock = realtimeManualClock();
  t = await buildTestApp({
    clock,
    startWorker: true,
    env: { DATA_DIR: dataDir, PUBLIC_URL, PUBLISH_RETRY_BASE_SECONDS: '1', PLATFORM_ORIGINS: `${relays.env},${THIRD_PARTY}=${third.url},wss://down.relay.example=ws://127.0.0.1:1` },
  });
  // The relay simulators' records fetch the notes' media from PUBLIC_URL: the app really listens.
  mediaOrigins[PUBLIC_URL] = await t.app.listen({ port: 0, host: '127.0.0.1' });
  org = await t.createOrg('Acme');
});

afterAll(async () => {
  await t?.close();
  await relays?.close();
  await third?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

interface PostView {
  id: string;
  state: 'DRAFT' | 'QUEUE' | 'PUBLISHED' | 'ERROR';
  releaseId: string | null;
  releaseURL: string | null;
  error: string | null;
  nextAttemptAt: string | null;
}

async function getPost(id: string): Promise<PostView> {
  const res = await call(t.app, org.apiKey, { method: 'GET', url: `/public/v1/posts/${id}` });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<PostView>();
}

/** Drives the worker until the post ends (moving the clock to retries and reconciliation checks). */
async function settle(id: string): Promise<PostView> {
  let last: PostView | undefined;
  return waitFor(
    async () => {
      last = await getPost(id);
      if (last.state === 'PUBLISHED' || last.state === 'ERROR') return last;
      const next = last.nextAttemptAt ? Date.parse(last.nextAttemptAt) : Number.NaN;
      if (next > clock.now()) clock.advance(next - clock.now());
      else if (last.error && /checking with/.test(last.error)) clock.advance(1100);
      await releaseDueJobs(t, clock);
      await sleep(50);
      return undefined;
    },
    30_000,
    `post ${id} to settle (last seen ${JSON.stringify(last)})`,
  );
}

const connect = (payload: Record<string, unknown>) => call(t.app, org.apiKey, { method: 'POST', url: '/public/v1/social/nostr', payload });
const createPost = (channel: string, value: { content: string; image: { id: string; path: string }[] }[]) =>
  call(t.app, org.apiKey, {
    method: 'POST',
    url: '/public/v1/posts',
    payload: { type: 'now', shortLink: false, tags: [], posts: [{ integration: { id: channel }, settings: { __type: 'nostr' }, value }] },
  });
const channelsOf = () => t.deps.database.db.select().from(integrations).where(eq(integrations.organizationId, org.id));

describe('nostr through the API', () => {
  it('GET /social/nostr describes the form (no longer 501)', async () => {
    const res = await call(t.app, org.apiKey, { method: 'GET', url: '/public/v1/social/nostr' });
    expect(res.statusCode, res.body).toBe(200);
    expect(Object.keys(res.json<{ credentials: { properties: object } }>().credentials.properties)).toEqual(['privateKey', 'generate', 'relays']);
  });

  it('a bad key names privateKey, relays out of reach name relays; nothing is stored', async () => {
    expect(expectError(await connect({ privateKey: 'nsec1notakey', relays: relays.urls }), 400, 'VALIDATION_FAILED').fields!.map((f) => f.path)).toEqual(['privateKey']);
    expect(expectError(await connect({ privateKey: '0'.repeat(64), relays: relays.urls }), 400, 'VALIDATION_FAILED').fields).toEqual([
      { path: 'privateKey', message: 'Not a usable Nostr secret key: it is outside the secp256k1 key range' },
    ]);
    expect(expectError(await connect({}), 400, 'VALIDATION_FAILED').fields!.map((f) => f.path)).toEqual(['privateKey']);
    const down = expectError(await connect({ privateKey: SECRET_HEX, relays: ['wss://down.relay.example'] }), 400, 'VALIDATION_FAILED');
    expect(down.fields).toEqual([{ path: 'relays', message: 'No relay could be reached: wss://down.relay.example: connection refused' }]);
    expect(await channelsOf()).toHaveLength(0);
  });

  it('connects with an nsec key: the channel is the hex public key, its profile the npub, the key sealed', async () => {
    const nsec = nip19.nsecEncode(new Uint8Array(Buffer.from(SECRET_HEX, 'hex')));
    const res = await connect({ privateKey: nsec, relays: [...relays.urls, THIRD_PARTY] });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ identifier: 'nostr', profile: nip19.npubEncode(PUBKEY) });
    expect(res.body).not.toContain(SECRET_HEX);
    channelId = res.json<{ id: string }>().id;
    const [row] = await t.deps.database.db.select().from(integrations).where(and(eq(integrations.id, channelId), eq(integrations.organizationId, org.id)));
    expect(row!.internalId).toBe(PUBKEY);
    expect(JSON.parse(t.deps.secretBox.open(row!.credentials!))).toEqual({ secretKey: SECRET_HEX, relays: [...relays.urls, THIRD_PARTY] });
  });

  it('publishes a thread with a picture to every relay; a refusing relay is noted; the third-party relay holds verified events', async () => {
    const raw = Buffer.alloc(40 * 30 * 3);
    for (let i = 0; i < raw.length; i++) raw[i] = (i * 7) & 255;
    const picture = await sharp(raw, { raw: { width: 40, height: 30, channels: 3 } }).png().toBuffer();
    const pic = await uploadMedia(t, org, picture, 'kite.png');
    relays.get('beta').refuse('blocked: pictures of kites are not allowed');
    const res = await createPost(channelId, [
      { content: '<p>Kites <strong>over</strong> the bay</p>', image: [{ id: pic.id, path: pic.path }] },
      { content: '<p>And a second word</p>', image: [] },
    ]);
    expect(res.statusCode, res.body).toBe(201);
    const firstId = res.json<{ postId: string }[]>()[0]!.postId;
    const one = await settle(firstId);
    expect(one.state).toBe('PUBLISHED');
    expect(one.error).toBe(`Published on 2 of 3 relays; not on ${relayUrl('beta')}: blocked: pictures of kites are not allowed`);
    // The thread item is its own row (GET /posts/{id} shows the post as a whole).
    const two = await waitFor(async () => {
      const [row] = await t.deps.database.db.select().from(posts).where(eq(posts.parentPostId, firstId));
      if (row?.state === 'QUEUE') await releaseDueJobs(t, clock);
      return row && row.state !== 'QUEUE' ? row : undefined;
    });
    expect({ state: two.state, error: two.error }).toEqual({ state: 'PUBLISHED', error: null });

    const root = relays.get('alpha').events.get(one.releaseId!)!;
    expect(root.event.content).toBe(`Kites over the bay\n\n${pic.path}`);
    expect(root.event.tags).toEqual([['imeta', `url ${pic.path}`, 'm image/png', 'dim 40x30']]);
    expect(root.mediaSha256).toEqual([sha(picture)]);
    expect(relays.get('beta').events.has(one.releaseId!)).toBe(false);
    expect(relays.get('beta').events.has(two.releaseId!)).toBe(true);
    expect(one.releaseURL).toBe(`https://njump.me/${nip19.neventEncode({ id: one.releaseId!, author: PUBKEY, kind: 1, relays: [relayUrl('alpha'), THIRD_PARTY] })}`);

    // Read back from relay software we did not write, with nostr-tools: both notes, signatures valid, the reply per NIP-10.
    const back = await readBack(third.url, { authors: [PUBKEY], kinds: [1] });
    expect(back.map((e) => e.id).sort()).toEqual([one.releaseId, two.releaseId].sort());
    for (const e of back) expect(verifyEvent(e)).toBe(true);
    const reply = back.find((e) => e.id === two.releaseId)!;
    expect(nip10.parse(reply).root?.id).toBe(one.releaseId);
    expect(reply.tags).toContainEqual(['p', PUBKEY]);
  });

  it('a crash after signing, before any relay answered, ends PUBLISHED with the one event (no second event with another id)', async () => {
    const res = await connect({ generate: true, relays: relays.urls });
    expect(res.statusCode, res.body).toBe(201);
    const crashChannel = res.json<{ id: string; profile: string }>();
    const pubkey = nip19.decode(crashChannel.profile as `npub1${string}`).data;
    // Alpha keeps the event and drops the connection before its OK; beta drops it unread.
    relays.get('alpha').dropAfterEvent({ store: true });
    relays.get('beta').dropAfterEvent({ store: false });
    const made = await createPost(crashChannel.id, [{ content: '<p>Sent just before the crash</p>', image: [] }]);
    expect(made.statusCode, made.body).toBe(201);
    const post = await settle(made.json<{ postId: string }[]>()[0]!.postId);
    const sent = [...relays.sims.values()].flatMap((s) => s.received.filter((e) => e.pubkey === pubkey));
    expect(new Set(sent.map((e) => e.id)).size).toBe(1);
    expect({ state: post.state, releaseId: post.releaseId }).toEqual({ state: 'PUBLISHED', releaseId: sent[0]!.id });
    expect([...relays.get('alpha').events.values()].filter((s) => s.event.pubkey === pubkey)).toHaveLength(1);
    // The publisher asked the relays for the account's notes before deciding.
    expect(relays.get('alpha').queries.some((q) => q.some((f) => f.authors?.includes(pubkey) && f.kinds?.includes(1)))).toBe(true);
  });
});
