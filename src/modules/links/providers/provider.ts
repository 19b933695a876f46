import type { PlatformHttp } from '../../../platforms/platform.js';
import type { ShortLinkProvider } from '../../../db/schema/links.js';

/**
 * An outside link shortener (Dub, Short.io, Kutt) behind one contract. The built-in shortener is
 * not one of these: it writes its own codes and counts its own clicks (`links.service.ts`).
 *
 * Calls go through the platforms' outgoing client (`platforms/http.ts`): timeouts, the
 * PLATFORM_ORIGINS rewrite (how tests reach the simulators), and the SSRF guard for a
 * user-supplied `apiUrl` (`untrustedHost: true`).
 */
export interface ShortenerSettings {
  /** the provider's API key (opened from its sealed form) */
  apiKey: string;
  /** the short domain to make links on (Short.io requires one) */
  domain: string | null;
  /** where the provider's API is; null: the provider's public API */
  apiUrl: string | null;
}

export interface ShortenedLink {
  /** the provider's id of the link, used to read its clicks */
  id: string;
  shortUrl: string;
}

/** Why a provider refused or failed; the message names the provider and what it said. */
export class ShortenerError extends Error {
  constructor(
    /** 'auth': the key was refused; 'rejected': the request was refused (bad domain, URL…);
     *  'unavailable': the provider failed, timed out or rate limited (worth a retry later) */
    readonly kind: 'auth' | 'rejected' | 'unavailable',
    message: string,
    /** seconds to wait, when the provider said (429 Retry-After) */
    readonly retryAfter?: number,
    /** the setting a refusal is about, when known (so a settings form can name the right field) */
    readonly field?: 'apiKey' | 'domain' | 'apiUrl',
  ) {
    super(message);
    this.name = 'ShortenerError';
  }
}

export interface Shortener {
  readonly provider: Exclude<ShortLinkProvider, 'builtin'>;
  /** what users see: "Dub", "Short.io", "Kutt" */
  readonly displayName: string;
  /** whether `domain` must be set */
  readonly needsDomain: boolean;
  /** whether `apiUrl` must be set (self-hosted only) */
  readonly needsApiUrl: boolean;
  /**
   * Makes one short link for `url` (already carrying its UTM parameters). Not idempotent on the
   * provider's side: the caller stores the result and never asks twice for the same post and URL.
   * Throws `ShortenerError`.
   */
  shorten(http: PlatformHttp, settings: ShortenerSettings, url: string): Promise<ShortenedLink>;
  /** Total clicks of each link id (ids the provider no longer knows are left out). Throws `ShortenerError`. */
  clicks(http: PlatformHttp, settings: ShortenerSettings, ids: string[]): Promise<Map<string, number>>;
  /** Checks the key (and domain) when the settings are saved. Throws `ShortenerError`. */
  verify(http: PlatformHttp, settings: ShortenerSettings): Promise<void>;
}
