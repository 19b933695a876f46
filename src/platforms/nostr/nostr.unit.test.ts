import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contractMediaHost, contractMediaOrigins, platformFailure, runSimulatorContract } from '../common/unit.testkit.js';
import type { InjectedKind } from '../../../test/simulators/harness.js';
import * as nip19 from 'nostr-tools/nip19';
import { finalizeEvent, getPublicKey, verifyEvent } from 'nostr-tools/pure';
import WebSocket from 'ws';
import type { ConnectedAccount, OperationContext } from '../platform.js';
import { classifyOutcomes, retryAfterOf } from './errors.js';
import { createNostrAdapter, noteUrl } from './index.js';
import { startNostrRelay } from './nostr.simulator.js';
import { contextFor, image, MEDIA_ORIGIN, relayUrl, SECRET_HEX, sha, startMediaHost, startRelays, type Relays, type TestCtx } from './nostr.testkit.js';

const adapter = createNostrAdapter({ relayTimeoutMs: 1500 });
const SK = new Uint8Array(Buffer.from(SECRET_HEX, 'hex'));
const PUBKEY = getPublicKey(SK);

// Nostr has no upload: a note links its media by public URL. The contract's media case stays
// genuine because the relay simulator's record fetches each imeta URL and hashes the bytes
// (the contract's https://media.example/1.png is served by a tiny host mapped for the relays).
runSimulatorContract({
  name: 'nostr',
  adapter,
  errorsIn200: false,
  host: contractMediaHost,
  start: async (host) => {
    const relays = await startRelays(['alpha', 'beta'], { mediaOrigins: contractMediaOrigins(host) });
    return {
      ...relays,
      // A failure kind is what every relay answers (one relay's refusal alone does not fail a post).
      injectKind: (k: InjectedKind) => relays.sims.forEach((s) => s.injectKind(k)),
      lookup: (id: string) => relays.get('alpha').lookup(id) ?? relays.get('beta').lookup(id),
    };
  },
  origins: (relays) => relays.origins,
  connect: (relays, ctx) => adapter.connectWithCredentials!({ privateKey: SECRET_HEX, relays: relays.urls }, ctx),
});

describe('nostr: several relays', () => {
  let relays: Relays;
  let ctx: TestCtx;
  let closeCtx: () => Promise<void>;
  let account: ConnectedAccount;
  let host: Awaited<ReturnType<typeof startMediaHost>>;
  const picture = Buffer.from('89504e470d0a1a0a-picture-bytes');
  const c = (): OperationContext => ({ ...ctx, credentials: account.credentials });
  const post = (content: string, extra: Partial<Parameters<typeof adapter.publish>[0]> = {}) =>
    adapter.publish({ item: { content, media: [] }, settings: {}, idempotencyKey: content, ...extra }, c());

  beforeAll(async () => {
    host = await startMediaHost(new Map([['/media/pic.png', picture]]));
    relays = await startRelays(['one', 'two', 'three'], { mediaOrigins: { [MEDIA_ORIGIN]: host.origin } });
    ({ ctx, close: closeCtx } = contextFor(new Map([...relays.origins, ['wss://closed.relay.example', 'ws://127.0.0.1:1']])));
    account = await adapter.connectWithCredentials!({ privateKey: SECRET_HEX, relays: relays.urls }, ctx);
  });
  afterAll(async () => {
    await closeCtx();
    await relays.close();
    await host.close();
  });

  it('all accept: one signed kind-1 event, the same on every relay, its URL an njump nevent', async () => {
    const r = await post('<p>Hello <strong>relays</strong></p>');
    if (r.status !== 'published') throw new Error('expected published');
    expect(r.note).toBeUndefined();
    for (const sim of relays.sims.values()) {
      const stored = sim.events.get(r.id)!;
      expect(verifyEvent(stored.event)).toBe(true);
      expect(stored.event).toMatchObject({ kind: 1, pubkey: PUBKEY, content: 'Hello relays', tags: [] });
    }
    expect(r.url).toBe(noteUrl(r.id, PUBKEY, [relayUrl('one'), relayUrl('two')]));
    const decoded = nip19.decode(r.url.replace('https://njump.me/', ''));
    expect(decoded).toEqual({ type: 'nevent', data: { id: r.id, author: PUBKEY, kind: 1, relays: [relayUrl('one'), relayUrl('two')] } });
  });

  it('one refuses: published on the others, the refusal in the result', async () => {
    relays.get('two').refuse('blocked: no links to this domain');
    const r = await post('<p>Partly</p>');
    if (r.status !== 'published') throw new Error('expected published');
    expect(r.note).toBe(`Published on 2 of 3 relays; not on ${relayUrl('two')}: blocked: no links to this domain`);
    expect(relays.get('one').events.has(r.id)).toBe(true);
    expect(relays.get('two').events.has(r.id)).toBe(false);
    expect(r.url).toBe(noteUrl(r.id, PUBKEY, [relayUrl('one'), relayUrl('three')]));
  });

  it("all refuse: rejected with every relay's reason", async () => {
    relays.get('one').refuse('blocked: spam');
    relays.get('two').refuse('pow: difficulty 20 is required');
    relays.get('three').refuse('invalid: too many hashtags');
    const err = await platformFailure(post('<p>Nobody wants this</p>'));
    expect(err.kind).toBe('rejected');
    expect(err.message).toBe(
      `Every relay refused the note: ${relayUrl('one')}: blocked: spam; ${relayUrl('two')}: pow: difficulty 20 is required; ${relayUrl('three')}: invalid: too many hashtags`,
    );
  });

  it('one never answers: it times out, the others still count', async () => {
    relays.get('three').silence();
    const r = await post('<p>One is asleep</p>');
    if (r.status !== 'published') throw new Error('expected published');
    expect(r.note).toBe(`Published on 2 of 3 relays; not on ${relayUrl('three')}: no answer within 1.5 s`);
    expect(relays.get('three').received.map((e) => e.id)).toContain(r.id);
  });

  it('none confirms (connections dropped after the event): outcome unknown, and findRecent finds the one event by its content', async () => {
    for (const s of relays.sims.values()) s.dropAfterEvent({ store: s === relays.get('one') });
    const since = new Date(Date.now() - 1000);
    const err = await platformFailure(post('<p>Crash before any OK</p>'));
    expect({ kind: err.kind, outcomeUnknown: err.details.outcomeUnknown }).toEqual({ kind: 'transient', outcomeUnknown: true });
    const sent = relays.get('one').received.at(-1)!;
    const found = await adapter.findRecent!({ since, limit: 10 }, c());
    expect(found[0]).toEqual({ id: sent.id, url: noteUrl(sent.id, PUBKEY, [relayUrl('one')]), content: 'Crash before any OK', createdAt: new Date(sent.created_at * 1000).toISOString() });
  });

  it('rate limits, relay errors and unreachable relays', async () => {
    relays.sims.forEach((s) => s.refuse('rate-limited: try again in 2 minutes'));
    const limited = await platformFailure(post('<p>Too fast</p>'));
    expect({ kind: limited.kind, wait: limited.details.retryAfterSeconds }).toEqual({ kind: 'rate_limited', wait: 120 });
    expect(retryAfterOf('rate-limited: slow down')).toBe(60);
    // Every relay out of reach: nothing was sent, a plain retry is safe.
    const gone = await platformFailure(adapter.publish({ item: { content: 'x', media: [] }, settings: {}, idempotencyKey: 'x' }, { ...c(), credentials: { ...account.credentials, relays: ['wss://closed.relay.example'] } }));
    expect({ kind: gone.kind, unknown: gone.details.outcomeUnknown }).toMatchObject({ kind: 'transient', unknown: undefined });
    expect(() => classifyOutcomes([{ relay: 'a', status: 'refused', message: 'restricted: members only' }])).toThrow(expect.objectContaining({ kind: 'reconnect_required' }));
    expect(() =>
      classifyOutcomes([
        { relay: 'a', status: 'refused', message: 'error: disk full' },
        { relay: 'b', status: 'unreachable', message: 'connection refused' },
      ]),
    ).toThrow(expect.objectContaining({ kind: 'transient' }));
  });

  it('media: URLs appended to the text, NIP-92 imeta tags, bytes as served', async () => {
    const pic = { ...image('pic'), alt: 'A red kite' };
    const r = await adapter.publish({ item: { content: '<p>Look</p>', media: [pic] }, settings: {}, idempotencyKey: 'media' }, c());
    if (r.status !== 'published') throw new Error('expected published');
    const stored = relays.get('one').events.get(r.id)!;
    expect(stored.event.content).toBe(`Look\n\n${MEDIA_ORIGIN}/media/pic.png`);
    expect(stored.event.tags).toEqual([['imeta', `url ${MEDIA_ORIGIN}/media/pic.png`, 'm image/png', 'dim 640x480', 'alt A red kite']]);
    expect(stored.mediaSha256).toEqual([sha(picture)]);
    const local = await platformFailure(adapter.publish({ item: { content: 'x', media: [{ ...pic, path: '/media/pic.png' }] }, settings: {}, idempotencyKey: 'l' }, c()));
    expect(local.kind).toBe('rejected');
  });

  it('thread items reply per NIP-10 (root and reply markers, p tag), and findRecent lists the replies', async () => {
    const first = await post('<p>Root</p>');
    if (first.status !== 'published') throw new Error('expected published');
    const second = await post('<p>Second</p>', { replyTo: { id: first.id, rootId: first.id } });
    if (second.status !== 'published') throw new Error('expected published');
    const third = await post('<p>Third</p>', { replyTo: { id: second.id, rootId: first.id } });
    if (third.status !== 'published') throw new Error('expected published');
    const hint = relayUrl('one');
    expect(relays.get('two').events.get(second.id)!.event.tags).toEqual([
      ['e', first.id, hint, 'root', PUBKEY],
      ['p', PUBKEY],
    ]);
    expect(relays.get('two').events.get(third.id)!.event.tags).toEqual([
      ['e', first.id, hint, 'root', PUBKEY],
      ['e', second.id, hint, 'reply', PUBKEY],
      ['p', PUBKEY],
    ]);
    expect(relays.get('one').lookup(third.id)?.replyTo).toBe(second.id);
    const replies = await adapter.findRecent!({ since: new Date(0), limit: 5, replyTo: { id: second.id, rootId: first.id } }, c());
    expect(replies.map((p) => p.id)).toContain(third.id);
    expect(relays.get('one').queries.at(-1)).toContainEqual(expect.objectContaining({ '#e': [second.id], authors: [PUBKEY] }));
  });
});

describe('nostr: connecting', () => {
  it('takes a hex or nsec key, reads the kind-0 profile, keeps the hex key and the relays; generate makes a new key', async () => {
    const relays = await startRelays(['p1', 'p2']);
    const { ctx, close } = contextFor(relays.origins);
    try {
      const profile = finalizeEvent({ kind: 0, created_at: 1_700_000_000, tags: [], content: JSON.stringify({ name: 'kite', display_name: 'Kite Flyer', picture: 'https://img.example/k.png' }) }, SK);
      relays.get('p2').seed(profile);
      const nsec = nip19.nsecEncode(SK);
      const a = await createNostrAdapter().connectWithCredentials!({ privateKey: nsec, relays: relays.urls }, ctx);
      expect(a).toEqual({
        internalId: PUBKEY,
        name: 'Kite Flyer',
        profile: nip19.npubEncode(PUBKEY),
        picture: 'https://img.example/k.png',
        credentials: { secretKey: SECRET_HEX, relays: relays.urls },
        expiresAt: null,
      });
      expect(relays.get('p1').queries[0]).toEqual([{ kinds: [0], authors: [PUBKEY], limit: 1 }]);
      const generated = await adapter.connectWithCredentials!({ generate: true, relays: relays.urls }, ctx);
      expect(generated.internalId).toMatch(/^[0-9a-f]{64}$/);
      expect(generated.internalId).not.toBe(PUBKEY);
      expect(getPublicKey(new Uint8Array(Buffer.from(generated.credentials.secretKey as string, 'hex')))).toBe(generated.internalId);
      expect(generated.name).toMatch(/^npub1.{7}….{6}$/);
    } finally {
      await close();
      await relays.close();
    }
  });

  it('a key outside the curve names privateKey; no reachable relay names relays; private addresses are refused by the guard', async () => {
    const relays = await startRelays(['up']);
    const { ctx, close } = contextFor(new Map([...relays.origins, ['wss://down.relay.example', 'ws://127.0.0.1:1']]));
    try {
      const bad = await platformFailure(adapter.connectWithCredentials!({ privateKey: 'f'.repeat(64), relays: relays.urls }, ctx));
      expect({ kind: bad.kind, field: bad.details.field }).toEqual({ kind: 'rejected', field: 'privateKey' });
      const down = await platformFailure(adapter.connectWithCredentials!({ privateKey: SECRET_HEX, relays: ['wss://down.relay.example'] }, ctx));
      expect({ kind: down.kind, field: down.details.field, message: down.message }).toEqual({
        kind: 'rejected',
        field: 'relays',
        message: 'No relay could be reached: wss://down.relay.example: connection refused',
      });
      const up = relays.get('up');
      const loop = await platformFailure(adapter.connectWithCredentials!({ privateKey: SECRET_HEX, relays: [up.url.replace('ws:', 'wss:')] }, ctx));
      expect(loop.details.field).toBe('relays');
      expect(loop.message).toMatch(/127\.0\.0\.1 is a private or reserved address/);
      expect(up.queries).toHaveLength(0);
      // One relay up is enough.
      const ok = await adapter.connectWithCredentials!({ privateKey: SECRET_HEX, relays: ['wss://down.relay.example', ...relays.urls] }, ctx);
      expect(ok.internalId).toBe(PUBKEY);
    } finally {
      await close();
      await relays.close();
    }
  });
});

describe('nostr: the relay simulator checks what it gets', () => {
  it('refuses a forged id or signature, answers duplicates, serves NIP-11', async () => {
    const relay = await startNostrRelay({ maxContentLength: 20 });
    const ws = new WebSocket(relay.url);
    const answers: unknown[][] = [];
    await new Promise((r) => ws.once('open', r));
    ws.on('message', (d) => answers.push(JSON.parse((d as Buffer).toString('utf8')) as unknown[]));
    const next = async (msg: unknown[]) => {
      const n = answers.length;
      ws.send(JSON.stringify(msg));
      while (answers.length === n) await new Promise((r) => setImmediate(r));
      return answers.at(-1)!;
    };
    try {
      const good = finalizeEvent({ kind: 1, created_at: 1_700_000_000, tags: [], content: 'hello' }, SK);
      expect(await next(['EVENT', { ...good, content: 'changed' }])).toEqual(['OK', good.id, false, 'invalid: event id does not match']);
      expect(await next(['EVENT', { ...good, sig: good.sig.replace(/^./, good.sig[0] === 'a' ? 'b' : 'a') }])).toEqual(['OK', good.id, false, 'invalid: signature verification failed']);
      expect(await next(['EVENT', good])).toEqual(['OK', good.id, true, '']);
      expect(await next(['EVENT', good])).toEqual(['OK', good.id, true, 'duplicate: already have this event']);
      const long = finalizeEvent({ kind: 1, created_at: 1_700_000_000, tags: [], content: 'x'.repeat(21) }, SK);
      expect(await next(['EVENT', long])).toEqual(['OK', long.id, false, 'invalid: content is longer than 20 characters']);
      expect(await next(['REQ', 's', { ids: [good.id] }])).toEqual(['EOSE', 's']);
      expect(answers.at(-2)).toEqual(['EVENT', 's', JSON.parse(JSON.stringify(good))]);
      const info = await fetch(relay.origin, { headers: { accept: 'application/nostr+json' } });
      expect(await info.json()).toMatchObject({ supported_nips: [1, 10, 11], limitation: { max_content_length: 20 } });
    } finally {
      ws.terminate();
      await relay.close();
    }
  });
});
