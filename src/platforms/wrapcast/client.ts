import { createHash } from 'node:crypto';
import { PlatformError, type OperationContext } from '../platform.js';
import { neynarOk } from './errors.js';

/**
 * The Neynar API (Farcaster) as the adapter uses it. Every call carries the deployment's Neynar
 * API key as `x-api-key`; answers are read by `neynarOk`.
 */

export const NEYNAR_API = 'https://api.neynar.com';
export const NEYNAR_LOGIN = 'https://app.neynar.com/login';

type Ctx = Pick<OperationContext, 'http'>;

export interface NeynarUser {
  fid: number;
  username: string;
  display_name?: string;
  pfp_url?: string | null;
  pro?: { status?: string } | null;
}

export interface NeynarCast {
  hash: string;
  parent_hash?: string | null;
  author: { fid: number; username?: string };
  text: string;
  timestamp: string;
  channel?: { id: string } | null;
  reactions?: { likes_count?: number; recasts_count?: number };
  replies?: { count?: number };
}

export interface NeynarChannel {
  id: string;
  name?: string;
  description?: string;
  image_url?: string;
  follower_count?: number;
}

/** `https://farcaster.xyz/<username>/<first 10 characters of the hash>` (Farcaster's short cast link). */
export function castUrl(username: string, hash: string): string {
  return `https://farcaster.xyz/${encodeURIComponent(username)}/${hash.slice(0, 10)}`;
}

/** Neynar's `idem`: a short idempotency key (16 characters recommended), derived from ours. */
export function idemOf(idempotencyKey: string): string {
  return createHash('sha256').update(idempotencyKey).digest('base64url').slice(0, 16);
}

const headers = (apiKey: string) => ({ 'x-api-key': apiKey, accept: 'application/json' });

async function get<T>(ctx: Ctx, apiKey: string, path: string, query: Record<string, string>): Promise<T> {
  const url = `${NEYNAR_API}${path}?${new URLSearchParams(query).toString()}`;
  return neynarOk<T>(await ctx.http.request({ method: 'GET', url, headers: headers(apiKey) }));
}

/** `GET /v2/farcaster/signer`: the signer's status and fid. */
export function getSigner(ctx: Ctx, apiKey: string, signerUuid: string) {
  return get<{ signer_uuid: string; status: string; fid?: number }>(ctx, apiKey, '/v2/farcaster/signer', { signer_uuid: signerUuid });
}

/** `GET /v2/farcaster/user/bulk` for one fid; `rejected` when Neynar does not know it. */
export async function userOf(ctx: Ctx, apiKey: string, fid: number): Promise<NeynarUser> {
  const { users } = await get<{ users?: NeynarUser[] }>(ctx, apiKey, '/v2/farcaster/user/bulk', { fids: String(fid) });
  const user = users?.find((u) => u.fid === fid);
  if (!user) throw new PlatformError('rejected', `Farcaster account ${fid} was not found`);
  return user;
}

/** The account's casts (replies included), newest first, page by page. */
export async function* castsOf(ctx: Ctx, apiKey: string, fid: number, pageSize: number): AsyncGenerator<NeynarCast> {
  let cursor: string | null | undefined;
  for (let page = 0; page < 20; page++) {
    const query: Record<string, string> = { fid: String(fid), limit: String(pageSize), include_replies: 'true' };
    if (cursor) query.cursor = cursor;
    const res = await get<{ casts?: NeynarCast[]; next?: { cursor?: string | null } }>(ctx, apiKey, '/v2/farcaster/feed/user/casts', query);
    for (const c of res.casts ?? []) yield c;
    cursor = res.next?.cursor;
    if (!cursor) return;
  }
}

/** `GET /v2/farcaster/cast` by hash. */
export async function getCast(ctx: Ctx, apiKey: string, hash: string): Promise<NeynarCast> {
  return (await get<{ cast: NeynarCast }>(ctx, apiKey, '/v2/farcaster/cast', { identifier: hash, type: 'hash' })).cast;
}

/** `GET /v2/farcaster/channel/search?q=`. */
export async function searchChannels(ctx: Ctx, apiKey: string, q: string): Promise<NeynarChannel[]> {
  return (await get<{ channels?: NeynarChannel[] }>(ctx, apiKey, '/v2/farcaster/channel/search', { q })).channels ?? [];
}

/** `POST /v2/farcaster/cast`: the answer's cast (hash and author), as Neynar gave it. */
export async function createCast(ctx: Ctx, apiKey: string, body: Record<string, unknown>) {
  return neynarOk<{ success?: boolean; cast?: { hash?: string; author?: { username?: string } } }>(
    await ctx.http.request({ method: 'POST', url: `${NEYNAR_API}/v2/farcaster/cast`, headers: headers(apiKey), body }),
  );
}
