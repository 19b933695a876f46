import type { AddressInfo } from 'node:net';
import { EventRepository, EventUtils, type Event as RelayEvent, type Filter as RelayFilter, type IncomingMessage } from '@nostr-relay/common';
import { NostrRelay } from '@nostr-relay/core';
import { eq } from 'drizzle-orm';
import * as nip10 from 'nostr-tools/nip10';
import * as nip19 from 'nostr-tools/nip19';
import { getPublicKey, verifyEvent } from 'nostr-tools/pure';
import type { Event as NostrEvent } from 'nostr-tools';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import { posts } from '../../db/schema/index.js';
import { picture, platformApi, PUBLIC_URL, sha, type PostItemInput } from '../../../test/platform-api-kit.js';
import { relayUrl, SECRET_HEX, startRelays, type Relays } from './nostr.testkit.js';

/**
 * Nostr end to end through the HTTP API of a real app with its worker: the credentials form
 * (`POST /social/nostr`: a bad key is a 400 naming `privateKey`, relays out of reach a 400 naming
 * `relays`, nothing stored), then posts made through `POST /posts` go to several relays: two relay
 * simulators and a relay built on `@nostr-relay/core` (software we did not write), from which the
 * notes are read back with nostr-tools and their signatures verified. A relay's refusal is kept as
 * the published post's note; a crash after signing, before any relay answered, is reconciled by
 * the publisher without a second event.
 */

const THIRD_PARTY = 'wss://third-party.relay.example';

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

const api = platformApi('nostr');
let relays: Relays;
let third: Awaited<ReturnType<typeof startThirdPartyRelay>>;
let channelId: string;
const mediaOrigins: Record<string, string> = {};
const PUBKEY = getPublicKey(new Uint8Array(Buffer.from(SECRET_HEX, 'hex')));

beforeAll(async () => {
  relays = await startRelays(['alpha', 'beta'], { mediaOrigins });
  third = await startThirdPartyRelay();
  await api.start({
    env: { PUBLIC_URL, PUBLISH_RETRY_BASE_SECONDS: '1', PLATFORM_ORIGINS: `${relays.env},${THIRD_PARTY}=${third.url},wss://down.relay.example=ws://127.0.0.1:1` },
  });
  // The relay simulators' records fetch the notes' media from PUBLIC_URL: the app really listens.
  mediaOrigins[PUBLIC_URL] = await api.listen();
});

afterAll(async () => {
  await api.close();
  await relays?.close();
  await third?.close();
});

/** Drives the worker until the post ends (moving the clock to retries and reconciliation checks). */
const settle = (id: string) =>
  api.settle(id, {
    timeoutMs: 30_000,
    advance: (p) => {
      if (!api.toNextAttempt(p) && p.error && /checking with/.test(p.error)) api.clock.advance(1100);
    },
  });

const connect = (payload: Record<string, unknown>) => api.connectForm(payload);
const createPost = (channel: string, items: PostItemInput[]) => api.createPost(channel, {}, items);

describe('nostr through the API', () => {
  it('GET /social/nostr describes the form (no longer 501)', async () => {
    const res = await api.call({ method: 'GET', url: '/public/v1/social/nostr' });
    expect(res.statusCode, res.body).toBe(200);
    expect(Object.keys(res.json<{ credentials: { properties: object } }>().credentials.properties)).toEqual(['privateKey', 'generate', 'relays']);
  });

  it('a bad key names privateKey, relays out of reach name relays; nothing is stored', async () => {
    expect((await api.expectConnectRefused({ privateKey: 'nsec1notakey', relays: relays.urls })).map((f) => f.path)).toEqual(['privateKey']);
    expect(await api.expectConnectRefused({ privateKey: '0'.repeat(64), relays: relays.urls })).toEqual([
      { path: 'privateKey', message: 'Not a usable Nostr secret key: it is outside the secp256k1 key range' },
    ]);
    expect((await api.expectConnectRefused({})).map((f) => f.path)).toEqual(['privateKey']);
    const down = await api.expectConnectRefused({ privateKey: SECRET_HEX, relays: ['wss://down.relay.example'] });
    expect(down).toEqual([{ path: 'relays', message: 'No relay could be reached: wss://down.relay.example: connection refused' }]);
  });

  it('connects with an nsec key: the channel is the hex public key, its profile the npub, the key sealed', async () => {
    const nsec = nip19.nsecEncode(new Uint8Array(Buffer.from(SECRET_HEX, 'hex')));
    const res = await connect({ privateKey: nsec, relays: [...relays.urls, THIRD_PARTY] });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ identifier: 'nostr', profile: nip19.npubEncode(PUBKEY) });
    expect(res.body).not.toContain(SECRET_HEX);
    channelId = res.json<{ id: string }>().id;
    expect((await api.channelRow(channelId)).internalId).toBe(PUBKEY);
    expect(await api.openCredentials(channelId)).toEqual({ secretKey: SECRET_HEX, relays: [...relays.urls, THIRD_PARTY] });
  });

  it('publishes a thread with a picture to every relay; a refusing relay is noted; the third-party relay holds verified events', async () => {
    const kite = await picture(1);
    const pic = await api.upload(kite, 'kite.png');
    relays.get('beta').refuse('blocked: pictures of kites are not allowed');
    const res = await createPost(channelId, [{ content: '<p>Kites <strong>over</strong> the bay</p>', image: [{ id: pic.id, path: pic.path }] }, { content: '<p>And a second word</p>' }]);
    const firstId = api.postIdOf(res);
    const one = await settle(firstId);
    expect(one.state).toBe('PUBLISHED');
    expect(one.error).toBe(`Published on 2 of 3 relays; not on ${relayUrl('beta')}: blocked: pictures of kites are not allowed`);
    // The thread item is its own row (GET /posts/{id} shows the post as a whole).
    const two = await api.eventually(async () => {
      const [row] = await api.t.deps.database.db.select().from(posts).where(eq(posts.parentPostId, firstId));
      return row && row.state !== 'QUEUE' ? row : undefined;
    }, 'the thread item');
    expect({ state: two.state, error: two.error }).toEqual({ state: 'PUBLISHED', error: null });

    const root = relays.get('alpha').events.get(one.releaseId!)!;
    expect(root.event.content).toBe(`Kites over the bay\n\n${pic.path}`);
    expect(root.event.tags).toEqual([['imeta', `url ${pic.path}`, 'm image/png', 'dim 40x30']]);
    expect(root.mediaSha256).toEqual([sha(kite)]);
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
    const post = await settle(api.postIdOf(await createPost(crashChannel.id, [{ content: '<p>Sent just before the crash</p>' }])));
    const sent = [...relays.sims.values()].flatMap((s) => s.received.filter((e) => e.pubkey === pubkey));
    expect(new Set(sent.map((e) => e.id)).size).toBe(1);
    expect({ state: post.state, releaseId: post.releaseId }).toEqual({ state: 'PUBLISHED', releaseId: sent[0]!.id });
    expect([...relays.get('alpha').events.values()].filter((s) => s.event.pubkey === pubkey)).toHaveLength(1);
    // The publisher asked the relays for the account's notes before deciding.
    expect(relays.get('alpha').queries.some((q) => q.some((f) => f.authors?.includes(pubkey) && f.kinds?.includes(1)))).toBe(true);
  });
});
