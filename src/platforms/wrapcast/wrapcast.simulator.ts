import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { currentSimulatorMode, mediaFetch, startSimulator, type InjectedKind, type Simulator } from '../simulator.js';
import type { PublishedRecord } from '../simulator.js';

/**
 * A fake of Farcaster through Neynar, on loopback. Sign in with Neynar (`GET /login` on the
 * app.neynar.com origin): the app is known by its client id, the redirect must be on one of its
 * authorised origins, and the approving user gets an approved managed signer paired with the
 * app's API key; the browser goes back to `redirect_uri` with `signer_uuid` and `fid` added.
 * The API (api.neynar.com) checks `x-api-key` on every call, that the signer is approved and
 * paired with that key, the text's length in UTF-8 bytes (320, 1,024 for Pro users), at most 2
 * embeds, that a parent cast and a channel exist, and de-duplicates by `idem` as Neynar does (the
 * same key from the same signer answers the same cast). Image embeds are fetched from their URL
 * (through `mediaOrigins`, public origin → where it is really served) and their bytes hashed; an
 * embed that cannot be fetched is refused, so a test cannot pass with a URL nobody can read.
 * Errors are Neynar's `{ code, message, property? }` with their status.
 */

export const NEYNAR_API_ORIGIN = 'https://api.neynar.com';
export const NEYNAR_APP_ORIGIN = 'https://app.neynar.com';

export interface NeynarApp {
  clientId: string;
  apiKey: string;
  /** origins allowed to receive the signer (the developer portal's "Authorized origins") */
  authorizedOrigins: string[];
}

export interface FarcasterUser {
  fid: number;
  username: string;
  display_name: string;
  pfp_url?: string;
  /** a Farcaster Pro subscriber (long casts) */
  pro?: boolean;
}

export interface SignerRecord {
  signer_uuid: string;
  apiKey: string;
  fid: number;
  status: 'generated' | 'pending_approval' | 'approved' | 'revoked';
  public_key: string;
}

export interface CastRecord {
  hash: string;
  fid: number;
  text: string;
  embeds: { url: string; sha256: string; size: number }[];
  parentHash: string | null;
  channelId: string | null;
  timestamp: string;
  idem: string | null;
  likes: number;
  recasts: number;
}

export interface WrapcastSimulatorOptions {
  /** public origin → where its files are really served (image embeds are fetched) */
  mediaOrigins?: Record<string, string>;
}

export interface WrapcastSimulator extends Simulator {
  apps: Map<string, NeynarApp>;
  users: Map<number, FarcasterUser>;
  signers: Map<string, SignerRecord>;
  channels: Map<string, { id: string; name: string; description: string; follower_count: number }>;
  casts: CastRecord[];
  /** the user who approves on the next Sign in with Neynar page */
  signInAs(fid: number): void;
  injectKind(kind: InjectedKind): void;
  lookup(hash: string): PublishedRecord | undefined;
  cast(hash: string): CastRecord | undefined;
}

const STANDARD_BYTES = 320;
const LONG_BYTES = 1024;

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const fail = (reply: FastifyReply, status: number, code: string, message: string, property?: string) =>
  reply.status(status).send(property ? { code, message, property } : { code, message });

export async function startWrapcastSimulator(opts: WrapcastSimulatorOptions = {}): Promise<WrapcastSimulator> {
  const mode = currentSimulatorMode();
  const apps = new Map<string, NeynarApp>();
  const users = new Map<number, FarcasterUser>();
  const signers = new Map<string, SignerRecord>();
  const channels = new Map<string, { id: string; name: string; description: string; follower_count: number }>();
  const casts: CastRecord[] = [];
  let signInFid: number | undefined;

  const appByKey = (req: FastifyRequest) => {
    const key = req.headers['x-api-key'];
    return typeof key === 'string' ? [...apps.values()].find((a) => a.apiKey === key) : undefined;
  };

  function userView(u: FarcasterUser) {
    return {
      object: 'user',
      fid: u.fid,
      username: u.username,
      display_name: u.display_name,
      pfp_url: u.pfp_url ?? null,
      ...(u.pro ? { pro: { status: 'subscribed', subscribed_at: '2025-06-01T00:00:00.000Z', expires_at: '2099-01-01T00:00:00.000Z' } } : {}),
    };
  }

  function castView(c: CastRecord) {
    const u = users.get(c.fid)!;
    const parent = c.parentHash ? casts.find((p) => p.hash === c.parentHash) : undefined;
    return {
      object: 'cast',
      hash: c.hash,
      parent_hash: c.parentHash,
      parent_author: { fid: parent ? parent.fid : null },
      thread_hash: parent ? rootOf(parent).hash : c.hash,
      author: { object: 'user', fid: u.fid, username: u.username, display_name: u.display_name, pfp_url: u.pfp_url ?? null },
      text: c.text,
      timestamp: c.timestamp,
      embeds: c.embeds.map((e) => ({ url: e.url })),
      channel: c.channelId ? { id: c.channelId, name: channels.get(c.channelId)?.name ?? c.channelId } : null,
      reactions: { likes_count: c.likes, recasts_count: c.recasts, likes: [], recasts: [] },
      replies: { count: casts.filter((r) => r.parentHash === c.hash).length },
    };
  }

  function rootOf(c: CastRecord): CastRecord {
    let cur = c;
    while (cur.parentHash) {
      const p = casts.find((x) => x.hash === cur.parentHash);
      if (!p) break;
      cur = p;
    }
    return cur;
  }

  async function fetchEmbed(url: string): Promise<{ ok: true; sha256: string; size: number } | { ok: false; message: string }> {
    if (!URL.canParse(url)) return { ok: false, message: `Invalid embed url: ${url}` };
    try {
      // One connection per fetch: none is left open in the service that served the picture (the in-process sandbox shares its process).
      const res = await mediaFetch(mode, opts.mediaOrigins, url, { headers: { connection: 'close' }, signal: AbortSignal.timeout(10_000) });
      if (!res.ok) return { ok: false, message: `Embed url could not be fetched: ${url} (HTTP ${res.status})` };
      const bytes = Buffer.from(await res.arrayBuffer());
      return { ok: true, sha256: sha256(bytes), size: bytes.length };
    } catch {
      return { ok: false, message: `Embed url could not be fetched: ${url}` };
    }
  }

  const sim = await startSimulator((app) => {
    // Sign in with Neynar: approves at once as the chosen user.
    app.get('/login', async (req, reply) => {
      const q = req.query as Record<string, string | undefined>;
      const neynarApp = q.client_id ? apps.get(q.client_id) : undefined;
      if (!neynarApp) return reply.status(400).type('text/plain').send('Unknown client_id');
      let redirect: URL;
      try {
        redirect = new URL(q.redirect_uri ?? '');
      } catch {
        return reply.status(400).type('text/plain').send('redirect_uri is required');
      }
      if (!neynarApp.authorizedOrigins.includes(redirect.origin)) {
        return reply.status(400).type('text/plain').send(`${redirect.origin} is not an authorized origin of this app`);
      }
      const fid = signInFid ?? [...users.keys()][0];
      if (fid === undefined) return reply.status(400).type('text/plain').send('No Farcaster account to sign in with');
      // One signer per user and app: signing in again gives the same signer back.
      let signer = [...signers.values()].find((s) => s.apiKey === neynarApp.apiKey && s.fid === fid && s.status === 'approved');
      if (!signer) {
        signer = { signer_uuid: randomUUID(), apiKey: neynarApp.apiKey, fid, status: 'approved', public_key: `0x${randomBytes(32).toString('hex')}` };
        signers.set(signer.signer_uuid, signer);
      }
      redirect.searchParams.set('signer_uuid', signer.signer_uuid);
      redirect.searchParams.set('fid', String(fid));
      return reply.redirect(redirect.toString(), 302);
    });

    app.addHook('onRequest', async (req, reply) => {
      if (!req.url.startsWith('/v2/')) return;
      if (!appByKey(req)) return fail(reply, 401, 'Unauthorized', 'Invalid or missing API key (x-api-key)');
    });

    app.get('/v2/farcaster/signer', async (req, reply) => {
      const q = req.query as Record<string, string | undefined>;
      if (!q.signer_uuid) return fail(reply, 400, 'InvalidField', 'signer_uuid is required', 'signer_uuid');
      const s = signers.get(q.signer_uuid);
      // A signer is paired with the API key that made it.
      if (!s || s.apiKey !== appByKey(req)!.apiKey) return fail(reply, 404, 'NotFound', 'Signer not found');
      return { object: 'signer', signer_uuid: s.signer_uuid, public_key: s.public_key, status: s.status, fid: s.fid };
    });

    app.get('/v2/farcaster/user/bulk', async (req, reply) => {
      const q = req.query as Record<string, string | undefined>;
      const fids = (q.fids ?? '').split(',').filter(Boolean);
      if (fids.length === 0 || fids.some((f) => !/^\d+$/.test(f))) return fail(reply, 400, 'InvalidField', 'fids must be a comma separated list of fids', 'fids');
      return { users: fids.map((f) => users.get(Number(f))).filter((u) => u !== undefined).map(userView) };
    });

    app.post('/v2/farcaster/cast', async (req, reply) => {
      const b = (req.body ?? {}) as Record<string, unknown>;
      if (typeof b.signer_uuid !== 'string' || !b.signer_uuid) return fail(reply, 400, 'InvalidField', 'signer_uuid is required', 'signer_uuid');
      const s = signers.get(b.signer_uuid);
      if (!s || s.apiKey !== appByKey(req)!.apiKey) return fail(reply, 403, 'Forbidden', 'Signer does not belong to this API key');
      if (s.status !== 'approved') return fail(reply, 403, 'Forbidden', `Signer is not approved (status: ${s.status})`);
      const user = users.get(s.fid)!;
      if (b.text !== undefined && typeof b.text !== 'string') return fail(reply, 400, 'InvalidField', 'text must be a string', 'text');
      const text = typeof b.text === 'string' ? b.text : '';
      const limit = user.pro ? LONG_BYTES : STANDARD_BYTES;
      if (Buffer.byteLength(text, 'utf8') > limit) return fail(reply, 400, 'InvalidField', `Text is too long: casts are at most ${limit} bytes`, 'text');
      const embeds = b.embeds === undefined ? [] : b.embeds;
      if (!Array.isArray(embeds)) return fail(reply, 400, 'InvalidField', 'embeds must be an array', 'embeds');
      if (embeds.length > 2) return fail(reply, 400, 'InvalidField', 'A cast has at most 2 embeds', 'embeds');
      if (!text && embeds.length === 0) return fail(reply, 400, 'InvalidField', 'A cast needs text or an embed', 'text');
      let parentHash: string | null = null;
      if (b.parent !== undefined) {
        if (typeof b.parent !== 'string' || !/^0x[0-9a-f]{40}$/.test(b.parent)) return fail(reply, 400, 'InvalidField', 'parent must be a cast hash or URL', 'parent');
        if (!casts.some((c) => c.hash === b.parent)) return fail(reply, 404, 'NotFound', 'Parent cast not found', 'parent');
        parentHash = b.parent;
      }
      let channelId: string | null = null;
      if (b.channel_id !== undefined) {
        if (typeof b.channel_id !== 'string' || !channels.has(b.channel_id)) return fail(reply, 404, 'NotFound', `Channel not found: ${typeof b.channel_id === 'string' ? b.channel_id : '(not a string)'}`, 'channel_id');
        channelId = b.channel_id;
      }
      const idem = typeof b.idem === 'string' && b.idem ? b.idem : null;
      if (idem) {
        const before = casts.find((c) => c.idem === idem && c.fid === s.fid);
        if (before) return { success: true, cast: { hash: before.hash, author: { object: 'user', fid: user.fid, username: user.username }, text: before.text } };
      }
      const fetched: CastRecord['embeds'] = [];
      for (const e of embeds as unknown[]) {
        const url = (e as { url?: unknown } | null)?.url;
        if (typeof url !== 'string') return fail(reply, 400, 'InvalidField', 'Each embed is { url } or { cast_id }', 'embeds');
        const got = await fetchEmbed(url);
        if (!got.ok) return fail(reply, 400, 'InvalidField', got.message, 'embeds');
        fetched.push({ url, sha256: got.sha256, size: got.size });
      }
      const cast: CastRecord = {
        hash: `0x${randomBytes(20).toString('hex')}`,
        fid: s.fid,
        text,
        embeds: fetched,
        parentHash,
        channelId,
        timestamp: new Date().toISOString(),
        idem,
        likes: 0,
        recasts: 0,
      };
      casts.push(cast);
      return { success: true, cast: { hash: cast.hash, author: { object: 'user', fid: user.fid, username: user.username }, text: cast.text } };
    });

    app.get('/v2/farcaster/cast', async (req, reply) => {
      const q = req.query as Record<string, string | undefined>;
      if (q.type !== 'hash' && q.type !== 'url') return fail(reply, 400, 'InvalidField', 'type must be hash or url', 'type');
      const c = casts.find((x) => x.hash === q.identifier);
      if (!c) return fail(reply, 404, 'NotFound', 'Cast not found');
      return { cast: castView(c) };
    });

    app.get('/v2/farcaster/feed/user/casts', async (req, reply) => {
      const q = req.query as Record<string, string | undefined>;
      if (!q.fid || !/^\d+$/.test(q.fid)) return fail(reply, 400, 'InvalidField', 'fid is required', 'fid');
      const limit = Number(q.limit ?? 25);
      if (!Number.isInteger(limit) || limit < 1 || limit > 150) return fail(reply, 400, 'InvalidField', 'limit must be between 1 and 150', 'limit');
      const withReplies = q.include_replies !== 'false';
      const mine = casts.filter((c) => c.fid === Number(q.fid) && (withReplies || !c.parentHash)).reverse();
      const start = q.cursor ? Number(Buffer.from(q.cursor, 'base64url').toString()) : 0;
      const page = mine.slice(start, start + limit);
      const next = start + limit < mine.length ? Buffer.from(String(start + limit)).toString('base64url') : null;
      return { casts: page.map(castView), next: { cursor: next } };
    });

    app.get('/v2/farcaster/channel/search', async (req, reply) => {
      const q = req.query as Record<string, string | undefined>;
      if (!q.q) return fail(reply, 400, 'InvalidField', 'q is required', 'q');
      const word = q.q.toLowerCase();
      const found = [...channels.values()].filter((c) => c.id.includes(word) || c.name.toLowerCase().includes(word));
      return { channels: found.map((c) => ({ object: 'channel', ...c, url: `https://farcaster.xyz/~/channel/${c.id}` })) };
    });
  });

  const castPath = /^\/v2\/farcaster\/cast(\?|$)/;
  return Object.assign(sim, {
    apps,
    users,
    signers,
    channels,
    casts,
    signInAs: (fid: number) => {
      signInFid = fid;
    },
    injectKind(kind: InjectedKind) {
      const shapes: Record<InjectedKind, { status: number; body: unknown; headers?: Record<string, string> }> = {
        // A signer never expires: a lost grant is a revoked signer.
        auth_expired: { status: 403, body: { code: 'Forbidden', message: 'Signer is not approved (status: revoked)' } },
        revoked: { status: 403, body: { code: 'Forbidden', message: 'Signer is not approved (status: revoked)' } },
        rate_limited: { status: 429, body: { code: 'RateLimitExceeded', message: 'Too many requests, please retry later' } },
        server_error: { status: 500, body: { code: 'InternalServerError', message: 'Something went wrong' } },
        rejected: { status: 400, body: { code: 'InvalidField', message: 'Text contains invalid characters', property: 'text' } },
        error_in_200: { status: 200, body: { success: false, message: 'The cast could not be submitted to the hub' } },
      };
      sim.inject({ path: castPath, ...shapes[kind] });
    },
    lookup(hash: string): PublishedRecord | undefined {
      const c = casts.find((x) => x.hash === hash);
      return c ? { text: c.text, ...(c.parentHash ? { replyTo: c.parentHash } : {}), mediaSha256: c.embeds.map((e) => e.sha256) } : undefined;
    },
    cast: (hash: string) => casts.find((x) => x.hash === hash),
  });
}
