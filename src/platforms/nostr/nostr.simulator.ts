import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Event as NostrEvent, Filter } from 'nostr-tools';
import * as nip10 from 'nostr-tools/nip10';
import { getEventHash, verifyEvent } from 'nostr-tools/pure';
import { currentSimulatorMode, mediaFetch, type PublishedRecord } from '../simulator.js';
import type { InjectedKind } from '../simulator.js';

/**
 * A small Nostr relay (NIP-01 over WebSocket, NIP-11 over HTTP) for tests. It checks what it gets
 * like a real relay: malformed events, wrong ids and bad signatures are answered `OK false
 * "invalid: …"`, a repeat `duplicate:`, content over its NIP-11 `max_content_length` `invalid:`;
 * REQ filters (ids, authors, kinds, since, until, limit, #e, #p) answer the stored events then
 * EOSE, and open subscriptions get new events live until CLOSE.
 *
 * Controls (each applies to the next EVENT frames): refuse with a message, never answer, drop the
 * connection after receiving (keeping the event or not: a crash before the `OK`), rate-limit.
 * Its record of an accepted note fetches the note's NIP-92 `imeta` URLs and hashes the bytes, so
 * tests compare the media clients will load (Nostr has no upload).
 */

export interface NostrRelayOptions {
  /** NIP-11 name */
  name?: string;
  /** NIP-11 `limitation.max_content_length` (default 64 KiB) */
  maxContentLength?: number;
  /** public media origin → where the bytes really are (the record fetches imeta URLs) */
  mediaOrigins?: Record<string, string>;
}

type Behaviour = { kind: 'refuse'; message: string } | { kind: 'silent' } | { kind: 'drop'; store: boolean };

export interface StoredNote {
  event: NostrEvent;
  /** sha256 of the bytes behind each imeta URL, in tag order ('unreachable: …' when the fetch failed) */
  mediaSha256: string[];
}

export interface NostrRelaySimulator {
  /** ws://127.0.0.1:port */
  readonly url: string;
  /** http://127.0.0.1:port (NIP-11) */
  readonly origin: string;
  /** accepted events, by id, in arrival order */
  readonly events: Map<string, StoredNote>;
  /** every EVENT frame received, accepted or not */
  readonly received: NostrEvent[];
  /** every REQ received: its filters */
  readonly queries: Filter[][];
  /** the next `times` EVENTs are answered `OK false` with `message` (e.g. "blocked: spam") */
  refuse(message: string, times?: number): void;
  /** the next `times` EVENTs get no answer at all (and are not kept) */
  silence(times?: number): void;
  /** the next `times` EVENTs: the connection is dropped before the `OK` (the event kept when `store`) */
  dropAfterEvent(opts: { store: boolean; times?: number }): void;
  injectKind(kind: InjectedKind): void;
  /** adds an event as if someone published it (profiles, other authors) */
  seed(event: NostrEvent): void;
  lookup(id: string): PublishedRecord | undefined;
  close(): Promise<void>;
}

function matches(f: Filter, e: NostrEvent): boolean {
  if (f.ids && !f.ids.includes(e.id)) return false;
  if (f.authors && !f.authors.includes(e.pubkey)) return false;
  if (f.kinds && !f.kinds.includes(e.kind)) return false;
  if (f.since !== undefined && e.created_at < f.since) return false;
  if (f.until !== undefined && e.created_at > f.until) return false;
  for (const [key, values] of Object.entries(f)) {
    if (!key.startsWith('#') || !Array.isArray(values)) continue;
    const name = key.slice(1);
    if (!e.tags.some((t) => t[0] === name && (values as string[]).includes(t[1]!))) return false;
  }
  return true;
}

function isEventShape(e: unknown): e is NostrEvent {
  const x = e as Record<string, unknown>;
  return (
    !!x &&
    typeof x.id === 'string' &&
    typeof x.pubkey === 'string' &&
    typeof x.sig === 'string' &&
    typeof x.content === 'string' &&
    Number.isInteger(x.kind) &&
    Number.isInteger(x.created_at) &&
    Array.isArray(x.tags) &&
    x.tags.every((t) => Array.isArray(t) && t.every((v) => typeof v === 'string'))
  );
}

export async function startNostrRelay(opts: NostrRelayOptions = {}): Promise<NostrRelaySimulator> {
  const mode = currentSimulatorMode();
  const maxContentLength = opts.maxContentLength ?? 65_536;
  const events = new Map<string, StoredNote>();
  const received: NostrEvent[] = [];
  const queries: Filter[][] = [];
  const behaviours: Behaviour[] = [];
  const subs = new Map<WebSocket, Map<string, Filter[]>>();

  const server: Server = createServer((req, res) => {
    if (req.method === 'GET' && (req.headers.accept ?? '').includes('application/nostr+json')) {
      res.writeHead(200, { 'content-type': 'application/nostr+json', 'access-control-allow-origin': '*' });
      res.end(
        JSON.stringify({
          name: opts.name ?? 'tidings test relay',
          description: 'A NIP-01 relay simulator',
          supported_nips: [1, 10, 11],
          software: 'tidings-nostr-simulator',
          version: '1',
          limitation: { max_message_length: 1_048_576, max_content_length: maxContentLength, max_event_tags: 100, auth_required: false, payment_required: false },
        }),
      );
      return;
    }
    res.writeHead(200, { 'content-type': 'text/plain' }).end('Please use a Nostr client to connect.');
  });
  const wss = new WebSocketServer({ server });

  async function hashMedia(e: NostrEvent): Promise<string[]> {
    const out: string[] = [];
    for (const tag of e.tags.filter((t) => t[0] === 'imeta')) {
      const url = tag.slice(1).find((v) => v.startsWith('url '))?.slice(4);
      if (!url) continue;
      try {
        const res = await mediaFetch(mode, opts.mediaOrigins, url, { signal: AbortSignal.timeout(5000) });
        if (!res.ok) throw new Error(`HTTP ${res.status}`);
        out.push(createHash('sha256').update(Buffer.from(await res.arrayBuffer())).digest('hex'));
      } catch (err) {
        out.push(`unreachable: ${(err as Error).message}`);
      }
    }
    return out;
  }

  async function store(e: NostrEvent) {
    events.set(e.id, { event: e, mediaSha256: await hashMedia(e) });
    for (const [ws, byId] of subs) {
      for (const [sub, filters] of byId) if (filters.some((f) => matches(f, e))) ws.send(JSON.stringify(['EVENT', sub, e]));
    }
  }

  async function onEvent(ws: WebSocket, e: unknown) {
    const ok = (id: string, accepted: boolean, message: string) => ws.send(JSON.stringify(['OK', id, accepted, message]));
    if (!isEventShape(e)) {
      const id = typeof (e as { id?: unknown })?.id === 'string' ? (e as { id: string }).id : '';
      return ok(id, false, 'invalid: the event is malformed');
    }
    received.push(e);
    const behaviour = behaviours.shift();
    if (behaviour?.kind === 'silent') return;
    if (behaviour?.kind === 'drop') {
      if (behaviour.store && verifyEvent(e)) await store(e);
      ws.terminate();
      return;
    }
    if (behaviour?.kind === 'refuse') return ok(e.id, false, behaviour.message);
    if (getEventHash(e) !== e.id) return ok(e.id, false, 'invalid: event id does not match');
    if (!verifyEvent(e)) return ok(e.id, false, 'invalid: signature verification failed');
    if (e.content.length > maxContentLength) return ok(e.id, false, `invalid: content is longer than ${maxContentLength} characters`);
    if (events.has(e.id)) return ok(e.id, true, 'duplicate: already have this event');
    await store(e);
    ok(e.id, true, '');
  }

  wss.on('connection', (ws: WebSocket, _req: IncomingMessage) => {
    subs.set(ws, new Map());
    ws.on('close', () => subs.delete(ws));
    ws.on('message', (data) => {
      let msg: unknown;
      try {
        msg = JSON.parse((data as Buffer).toString('utf8'));
      } catch {
        ws.send(JSON.stringify(['NOTICE', 'error: could not parse the message as JSON']));
        return;
      }
      if (!Array.isArray(msg) || typeof msg[0] !== 'string') {
        ws.send(JSON.stringify(['NOTICE', 'error: a message is a JSON array starting with its type']));
        return;
      }
      if (msg[0] === 'EVENT') {
        void onEvent(ws, msg[1]);
      } else if (msg[0] === 'REQ' && typeof msg[1] === 'string') {
        const sub = msg[1];
        const filters = msg.slice(2) as Filter[];
        if (filters.some((f) => !f || typeof f !== 'object' || Array.isArray(f))) {
          ws.send(JSON.stringify(['CLOSED', sub, 'invalid: a filter is a JSON object']));
          return;
        }
        queries.push(filters);
        const seen = new Set<string>();
        for (const f of filters) {
          const hits = [...events.values()]
            .map((s) => s.event)
            .filter((e) => matches(f, e))
            .sort((a, b) => b.created_at - a.created_at)
            .slice(0, f.limit ?? Infinity);
          for (const e of hits) {
            if (seen.has(e.id)) continue;
            seen.add(e.id);
            ws.send(JSON.stringify(['EVENT', sub, e]));
          }
        }
        ws.send(JSON.stringify(['EOSE', sub]));
        subs.get(ws)?.set(sub, filters);
      } else if (msg[0] === 'CLOSE' && typeof msg[1] === 'string') {
        subs.get(ws)?.delete(msg[1]);
      } else {
        ws.send(JSON.stringify(['NOTICE', `error: unknown message type ${String(msg[0])}`]));
      }
    });
  });

  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  const push = (b: Behaviour, times = 1) => {
    for (let i = 0; i < times; i++) behaviours.push(b);
  };

  return {
    url: `ws://127.0.0.1:${port}`,
    origin: `http://127.0.0.1:${port}`,
    events,
    received,
    queries,
    refuse: (message, times) => push({ kind: 'refuse', message }, times),
    silence: (times) => push({ kind: 'silent' }, times),
    dropAfterEvent: ({ store: keep, times }) => push({ kind: 'drop', store: keep }, times),
    injectKind(kind) {
      const message = {
        auth_expired: 'restricted: this pubkey is not allowed to write here',
        revoked: 'restricted: this pubkey is not allowed to write here',
        rate_limited: 'rate-limited: slow down, try again in 30 seconds',
        server_error: 'error: the database is not available',
        rejected: 'blocked: this content is not allowed here',
        error_in_200: 'invalid: the event is malformed',
      }[kind];
      push({ kind: 'refuse', message });
    },
    seed(e) {
      events.set(e.id, { event: e, mediaSha256: [] });
    },
    lookup(id) {
      const s = events.get(id);
      if (!s) return undefined;
      const refs = nip10.parse(s.event);
      return { text: s.event.content, replyTo: refs.reply?.id ?? refs.root?.id, mediaSha256: s.mediaSha256 };
    },
    async close() {
      for (const ws of wss.clients) ws.terminate();
      await new Promise<void>((r) => wss.close(() => r()));
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
