import { api, unwrap } from '../../api/client.js';
import type { components, paths } from '../../api/schema.js';

/**
 * The short-link and writing-help routes of issue 32 (Settings → Short links, Settings → Writing
 * help, the post page's Links) through the typed client; refusals come back as `ApiFailure`.
 */

/** GET/PUT /short-links/settings */
export type ShortLinkSettings = components['schemas']['ShortLinkSettings'];
export type ShortLinkProviderId = ShortLinkSettings['provider'];
/** PUT /short-links/settings: `apiKey` left out keeps the stored key. */
export type ShortLinkSettingsBody = paths['/short-links/settings']['put']['requestBody']['content']['application/json'];

/** GET/PUT /ai/settings */
export type AiSettings = components['schemas']['AiSettings'];
/** PUT /ai/settings: `apiKey` left out keeps the stored key. */
export type AiSettingsBody = paths['/ai/settings']['put']['requestBody']['content']['application/json'];

/** One short link of a post (GET /posts/{id}/links). */
export type PostLink = components['schemas']['PostLinks']['links'][number];

export const linkKeys = {
  shortLinkSettings: ['short-link-settings'] as const,
  aiSettings: ['ai-settings'] as const,
  postLinks: (postId: string) => ['post-links', postId] as const,
};

export const getShortLinkSettings = () => unwrap(api.GET('/short-links/settings'));
export const putShortLinkSettings = (body: ShortLinkSettingsBody) => unwrap(api.PUT('/short-links/settings', { body }));
export const getAiSettings = () => unwrap(api.GET('/ai/settings'));
export const putAiSettings = (body: AiSettingsBody) => unwrap(api.PUT('/ai/settings', { body }));
export const deleteAiSettings = () => unwrap(api.DELETE('/ai/settings'));
export const getPostLinks = (postId: string) => unwrap(api.GET('/posts/{id}/links', { params: { path: { id: postId } } }));
