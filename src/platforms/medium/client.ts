import type { OperationContext, PlatformRequest } from '../platform.js';
import { mediumData } from './errors.js';

/** Medium's API client: the requests the adapter makes and the shapes of their answers. */

export const MEDIUM_API = 'https://api.medium.com/v1';

type Http = Pick<OperationContext, 'http'>;

export interface MediumUser {
  id: string;
  username: string;
  name?: string;
  url?: string;
  imageUrl?: string;
}

export interface MediumPost {
  id: string;
  url: string;
}

export interface MediumPublication {
  id: string;
  name: string;
  url?: string;
  imageUrl?: string;
}

/** One call to Medium's API with the integration token: its `data`, or the classified error. */
async function call<T>(ctx: Http, token: string, method: PlatformRequest['method'], path: string, body?: unknown): Promise<T> {
  return mediumData<T>(
    await ctx.http.request({
      method,
      url: `${MEDIUM_API}${path}`,
      headers: { authorization: `Bearer ${token}`, accept: 'application/json', 'accept-charset': 'utf-8' },
      ...(body === undefined ? {} : { body }),
    }),
  );
}

/** `GET /me`: the token's user. */
export const me = (ctx: Http, token: string) => call<MediumUser>(ctx, token, 'GET', '/me');

/** `POST /users/{authorId}/posts`, or `/publications/{id}/posts` with a publication: the story created. */
export function createStory(ctx: Http, token: string, userId: string, publication: string | undefined, body: unknown) {
  const path = publication ? `/publications/${encodeURIComponent(publication)}/posts` : `/users/${encodeURIComponent(userId)}/posts`;
  return call<MediumPost>(ctx, token, 'POST', path, body);
}

/** `GET /users/{userId}/publications`. */
export const publicationsOf = (ctx: Http, token: string, userId: string) => call<MediumPublication[]>(ctx, token, 'GET', `/users/${encodeURIComponent(userId)}/publications`);
