import { API_BASE, csrfHeader, signInUrl, unwrap } from '../../api/client.js';

/**
 * The short-link and writing-help routes of issue 32 (Settings → Short links, Settings → Writing
 * help, the post page's Links). Called through `fetch` with the session's CSRF token, the way the
 * typed client does, until the generated API types describe them; refusals come back as the same
 * `ApiFailure` (`unwrap`).
 */
async function call<T>(method: 'GET' | 'PUT' | 'DELETE', path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = method === 'GET' ? {} : { ...csrfHeader() };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${API_BASE}${path}`, { method, credentials: 'same-origin', headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  // the session ended (signed out elsewhere, expired): sign in again and come back, as the typed client does
  if (response.status === 401) window.location.assign(signInUrl());
  const text = await response.text();
  let data: unknown;
  try {
    data = text ? JSON.parse(text) : undefined;
  } catch {
    data = undefined;
  }
  return unwrap<T>(Promise.resolve(response.ok ? { data: data as T, response } : { error: data ?? {}, response }));
}

export type ShortLinkProviderId = 'builtin' | 'dub' | 'shortio' | 'kutt';

export interface ShortLinkProviderInfo {
  id: ShortLinkProviderId;
  name: string;
  needsApiKey: boolean;
  needsDomain: boolean;
  needsApiUrl: boolean;
}

/** GET/PUT /short-links/settings */
export interface ShortLinkSettings {
  provider: ShortLinkProviderId;
  domain: string | null;
  apiUrl: string | null;
  utmTemplate: string | null;
  hasApiKey: boolean;
  builtinBaseUrl: string;
  providers: ShortLinkProviderInfo[];
}

/** PUT /short-links/settings: `apiKey` left out keeps the stored key. */
export interface ShortLinkSettingsBody {
  provider: ShortLinkProviderId;
  apiKey?: string | null;
  domain?: string | null;
  apiUrl?: string | null;
  utmTemplate?: string | null;
}

/** GET/PUT /ai/settings */
export interface AiSettings {
  configured: boolean;
  baseUrl: string | null;
  model: string | null;
  vision: boolean;
  hasApiKey: boolean;
}

/** PUT /ai/settings: `apiKey` left out keeps the stored key. */
export interface AiSettingsBody {
  baseUrl: string;
  model: string;
  apiKey?: string | null;
  vision?: boolean;
}

/** One short link of a post (GET /posts/{id}/links). */
export interface PostLink {
  id: string;
  shortUrl: string;
  originalUrl: string;
  targetUrl: string;
  provider: string;
  clicks: number;
  botClicks: number;
  createdAt: string;
}

export const linkKeys = {
  shortLinkSettings: ['short-link-settings'] as const,
  aiSettings: ['ai-settings'] as const,
  postLinks: (postId: string) => ['post-links', postId] as const,
};

export const getShortLinkSettings = () => call<ShortLinkSettings>('GET', '/short-links/settings');
export const putShortLinkSettings = (body: ShortLinkSettingsBody) => call<ShortLinkSettings>('PUT', '/short-links/settings', body);
export const getAiSettings = () => call<AiSettings>('GET', '/ai/settings');
export const putAiSettings = (body: AiSettingsBody) => call<AiSettings>('PUT', '/ai/settings', body);
export const deleteAiSettings = () => call<void>('DELETE', '/ai/settings');
export const getPostLinks = (postId: string) => call<{ links: PostLink[] }>('GET', `/posts/${encodeURIComponent(postId)}/links`);
