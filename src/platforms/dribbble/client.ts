import type { OperationContext, PlatformRequest, PlatformResponse, PublishMedia } from '../platform.js';
import { dribbbleOk } from './errors.js';

/** The Dribbble API v2 as the adapter uses it: every call with the user's bearer token, answers read by `dribbbleOk`. */

export const DRIBBBLE_WWW_ORIGIN = 'https://dribbble.com';
export const DRIBBBLE_API_ORIGIN = 'https://api.dribbble.com';
export const shotUrl = (id: string) => `${DRIBBBLE_WWW_ORIGIN}/shots/${id}`;

export interface DribbbleTeam {
  id: number;
  name?: string;
  login?: string;
  html_url?: string;
  avatar_url?: string;
}

export interface DribbbleUser {
  id: number;
  name?: string;
  login?: string;
  html_url?: string;
  avatar_url?: string;
  can_upload_shot?: boolean;
  teams?: DribbbleTeam[];
}

export interface DribbbleShot {
  id: number;
  title?: string;
  description?: string | null;
  html_url?: string;
  published_at?: string;
}

type Ctx = Pick<OperationContext, 'http' | 'clock'>;

async function api(ctx: Ctx, token: string, req: PlatformRequest): Promise<PlatformResponse> {
  const res = await ctx.http.request({ ...req, headers: { authorization: `Bearer ${token}`, accept: 'application/json', ...req.headers } });
  return dribbbleOk(res, ctx.clock.now());
}

/** `GET /v2/user`: the user the token belongs to, with their teams. */
export const me = async (ctx: Ctx, token: string) => (await api(ctx, token, { method: 'GET', url: `${DRIBBBLE_API_ORIGIN}/v2/user` })).body as DribbbleUser;

/** The file name Dribbble sees (it reads the type from the bytes; the name only needs a fitting extension). */
export function fileName(m: PublishMedia): string {
  const ext = m.mimeType === 'image/jpeg' ? 'jpg' : m.mimeType.split('/')[1] ?? 'png';
  return `shot.${ext}`;
}

/** `POST /v2/shots` (multipart): Dribbble answers 202 with the new shot's URL in `Location`; that header. */
export async function createShot(ctx: Ctx, token: string, form: FormData): Promise<string> {
  const res = await api(ctx, token, { method: 'POST', url: `${DRIBBBLE_API_ORIGIN}/v2/shots`, body: form, timeoutMs: 120_000 });
  return res.headers.location ?? '';
}

/** `GET /v2/user/shots`, one page of 100. */
export async function userShots(ctx: Ctx, token: string, page: number): Promise<DribbbleShot[]> {
  return (await api(ctx, token, { method: 'GET', url: `${DRIBBBLE_API_ORIGIN}/v2/user/shots?page=${page}&per_page=100` })).body as DribbbleShot[];
}
