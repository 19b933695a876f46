import { z } from 'zod';
import { readCredentials, StoredOAuthTokens, storedText, storedTextOrNull } from '../common/credentials.js';
import { htmlToText } from '../common/html.js';
import { PlatformError, type Credentials, type OperationContext, type PlatformResponse, type PublishMedia } from '../platform.js';
import { pinterestOk } from './errors.js';

/**
 * The Pinterest API v5 as the adapter uses it: the REST calls with the bearer token, the pin
 * body built from a post, and the media sources it carries.
 */

export const PINTEREST_API = 'https://api.pinterest.com';
export const PINTEREST_WWW = 'https://www.pinterest.com';

export const pinUrl = (id: string) => `${PINTEREST_WWW}/pin/${id}/`;

/** Pinterest's own limits on a pin's fields. */
export const LIMITS = { title: 100, description: 500, link: 2048, altText: 500, carouselMin: 2, carouselMax: 5, imageBytes: 20 * 1024 * 1024 } as const;

/** The picture types Pinterest takes as base64 (`content_type`); others go by URL. */
export const BASE64_TYPES = ['image/jpeg', 'image/png'] as const;

/** What a connected Pinterest channel stores (sealed by the caller). */
export interface PinterestCredentials {
  accessToken: string;
  refreshToken: string | null;
  /** ISO time the access token expires (30 days after issue) */
  expiresAt: string | null;
  /** ISO time the refresh token expires, when Pinterest said */
  refreshTokenExpiresAt: string | null;
  userId: string;
  username: string;
}

const StoredPinterestCredentials = StoredOAuthTokens.extend({ refreshTokenExpiresAt: storedTextOrNull, userId: z.string().nullish(), username: storedText }).transform(
  ({ userId, ...c }): PinterestCredentials => ({ ...c, userId: userId ?? c.username }),
);
export const pinterestCreds = (ctx: { credentials: Credentials }): PinterestCredentials => readCredentials(ctx, StoredPinterestCredentials, 'Pinterest');

type Ctx = Pick<OperationContext, 'http' | 'clock'>;

/** The v5 REST API bound to one access token. */
export interface PinterestApi {
  get<T>(pathAndQuery: string): Promise<T>;
  post<T>(path: string, body: unknown, timeoutMs?: number): Promise<T>;
}

export function pinterestApi(ctx: Ctx, c: Pick<PinterestCredentials, 'accessToken' | 'refreshToken'>): PinterestApi {
  const headers = { authorization: `Bearer ${c.accessToken}`, accept: 'application/json' };
  const check = (res: PlatformResponse) => pinterestOk(res, { now: ctx.clock.now(), canRefresh: c.refreshToken !== null });
  return {
    async get<T>(pathAndQuery: string) {
      return check(await ctx.http.request({ method: 'GET', url: `${PINTEREST_API}${pathAndQuery}`, headers })).body as T;
    },
    async post<T>(path: string, body: unknown, timeoutMs?: number) {
      return check(await ctx.http.request({ method: 'POST', url: `${PINTEREST_API}${path}`, headers: { ...headers, 'content-type': 'application/json' }, body, ...(timeoutMs ? { timeoutMs } : {}) })).body as T;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Shapes of the answers

export interface PinView {
  id: string;
  created_at?: string;
  title?: string | null;
  description?: string | null;
  link?: string | null;
  board_id?: string;
  creative_type?: string;
  media?: { media_type?: string } | null;
}

export interface Page<T> {
  items?: T[];
  bookmark?: string | null;
}

export interface MediaUpload {
  media_id: string;
  media_type?: string;
  upload_url?: string;
  upload_parameters?: Record<string, string>;
}

export interface MediaStatus {
  media_id?: string;
  media_type?: string;
  status?: 'registered' | 'processing' | 'succeeded' | 'failed';
}

// ---------------------------------------------------------------------------------------------
// The pin

/** The fields of `POST /v5/pins` besides `media_source`. */
export interface PinFields {
  board_id: string;
  title?: string;
  description: string;
  link?: string;
  alt_text?: string;
  dominant_color?: string;
}

const str = (v: unknown) => (typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined);

/** The board id of the settings, or a refusal naming the field. */
export function boardOf(settings: Record<string, unknown>): string {
  const board = str(settings.board);
  if (!board) throw new PlatformError('rejected', 'A Pinterest pin needs a board (settings.board): choose one with the boards tool');
  if (!/^\d+$/.test(board)) throw new PlatformError('rejected', `"${board}" is not a Pinterest board id (settings.board): board ids are numbers, as the boards tool lists them`);
  return board;
}

/** The pin's text fields from the post's settings and text; alt text from the first media item that has one. */
export function pinFields(settings: Record<string, unknown>, content: string, media: PublishMedia[]): PinFields {
  const fields: PinFields = { board_id: boardOf(settings), description: htmlToText(content) };
  const title = str(settings.title);
  const link = str(settings.link);
  const color = str(settings.dominant_color);
  const alt = media.map((m) => str(m.alt)).find(Boolean);
  if (title) fields.title = title.slice(0, LIMITS.title);
  if (link) fields.link = link;
  if (alt) fields.alt_text = alt.slice(0, LIMITS.altText);
  if (color) fields.dominant_color = color;
  return fields;
}

/** The bytes of a stored picture as base64 (pictures are bounded to 20 MiB, so reading one whole is fine). */
export async function base64Of(blob: Blob): Promise<string> {
  return Buffer.from(await blob.arrayBuffer()).toString('base64');
}

/** The public URL Pinterest fetches a picture from: the stored item's `path`, which must be https. */
export function publicUrlOf(m: PublishMedia): string {
  if (!/^https:\/\//i.test(m.path)) {
    throw new PlatformError(
      'rejected',
      `Pinterest fetches ${m.mimeType} pictures from their public address, and ${m.path} is not https: set PUBLIC_URL (or S3_PUBLIC_URL) to an https address Pinterest can reach`,
    );
  }
  return m.path;
}

/** JPEG or PNG by their first bytes (what a stored Blob really holds, whatever its name says). */
export async function sniffBase64Type(blob: Blob): Promise<(typeof BASE64_TYPES)[number] | undefined> {
  const head = Buffer.from(await blob.slice(0, 8).arrayBuffer());
  if (head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return 'image/jpeg';
  if (head.subarray(0, 8).equals(Buffer.from('89504e470d0a1a0a', 'hex'))) return 'image/png';
  return undefined;
}

export const isBase64Type = (mimeType: string): mimeType is (typeof BASE64_TYPES)[number] => (BASE64_TYPES as readonly string[]).includes(mimeType);
