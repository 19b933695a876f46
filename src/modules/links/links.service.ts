import { randomBytes } from 'node:crypto';
import type { ActivityRecorder } from '../../core/activity.js';
import { NO_ACTIVITY } from '../../core/activity.js';
import { currentActor } from '../../core/actor.js';
import { ShortLinkFailure, type LinkShortenerPort, type ShortenRequest } from '../../core/short-links.js';
import type { Db, Tx } from '../../db/client.js';
import type { ShortLinkProvider } from '../../db/schema/index.js';
import { AppError, fieldError, notFound } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import { isUuid } from '../../lib/ids.js';
import type { SecretBox } from '../../lib/secret-box.js';
import type { PlatformHttp } from '../../platforms/platform.js';
import type { AnalyticsSeries } from '../../platforms/platform.js';
import type { LinksRepository, NewShortLinkRow, ShortLinkRow, ShortLinkSettingsRow } from './links.repository.js';
import type { PostLinks, ShortLinkSettingsBody, ShortLinkSettingsOut } from './links.schemas.js';
import { ShortenerError, type Shortener, type ShortenerSettings } from './providers/provider.js';
import { isCrawler } from './crawlers.js';
import { applyUtm, checkUtmTemplate } from './utm.js';

export type OutsideProvider = Exclude<ShortLinkProvider, 'builtin'>;

export interface LinksServiceDeps {
  links: LinksRepository;
  /** the outside shorteners this deployment offers */
  shorteners: Partial<Record<OutsideProvider, Shortener>>;
  /** the outgoing client (timeouts, PLATFORM_ORIGINS, SSRF guard for a user-given API URL) */
  http: PlatformHttp;
  secretBox: SecretBox;
  clock: Clock;
  /** `<base>/s/<code>` is a built-in short link (SHORT_LINK_BASE_URL, else PUBLIC_URL) */
  baseUrl: string;
  activity?: ActivityRecorder;
  logger?: { warn(obj: unknown, msg?: string): void };
}

const CODE_ALPHABET = 'abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789';
const CODE_LENGTH = 7;
/** An outside provider's click totals are read again when older than this. */
const CLICKS_FRESH_MS = 5 * 60_000;
/** The domain a provider makes links on when none is set (for the length estimate). */
const DEFAULT_DOMAIN: Record<OutsideProvider, string> = { dub: 'dub.sh', shortio: 'short.io', kutt: 'kutt.to' };
/** Codes outside providers give are at most this long (Dub 7, Kutt 6, Short.io 4–6); the estimate takes the longest. */
const OUTSIDE_CODE_LENGTH = 8;

function newCode(): string {
  const bytes = randomBytes(CODE_LENGTH);
  let code = '';
  for (const b of bytes) code += CODE_ALPHABET[b % CODE_ALPHABET.length];
  return code;
}

function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/**
 * Short links (issue 32): the organisation's settings, the links made at publish time (the
 * engine's port), the built-in redirect and its click counting, and the clicks per post.
 */
export function createLinksService(deps: LinksServiceDeps) {
  const { links: repo, clock } = deps;
  const activity = deps.activity ?? NO_ACTIVITY;

  function shortenerOf(provider: ShortLinkProvider): Shortener | undefined {
    return provider === 'builtin' ? undefined : deps.shorteners[provider];
  }

  function settingsOut(row: ShortLinkSettingsRow | undefined): ShortLinkSettingsOut {
    const provider = row?.provider ?? 'builtin';
    return {
      provider,
      domain: row?.domain ?? null,
      apiUrl: row?.apiUrl ?? null,
      utmTemplate: row?.utmTemplate ?? null,
      hasApiKey: Boolean(row?.apiKeySealed),
      builtinBaseUrl: `${deps.baseUrl}/s/`,
      shortLinkLength: sampleUrl(row).length,
      providers: [
        { id: 'builtin', name: 'Built in', needsApiKey: false, needsDomain: false, needsApiUrl: false },
        ...Object.values(deps.shorteners).map((s) => ({ id: s.provider, name: s.displayName, needsApiKey: true, needsDomain: s.needsDomain, needsApiUrl: s.needsApiUrl })),
      ],
    };
  }

  /** A URL as long as the organisation's short links are (at most). */
  function sampleUrl(row: ShortLinkSettingsRow | undefined): string {
    const provider = row?.provider ?? 'builtin';
    if (provider === 'builtin') return `${deps.baseUrl}/s/${'x'.repeat(CODE_LENGTH)}`;
    const host = row?.domain ?? (row?.apiUrl ? new URL(row.apiUrl).host : DEFAULT_DOMAIN[provider]);
    return `https://${host}/${'x'.repeat(OUTSIDE_CODE_LENGTH)}`;
  }

  function providerSettings(row: ShortLinkSettingsRow): ShortenerSettings {
    return { apiKey: row.apiKeySealed ? deps.secretBox.open(row.apiKeySealed) : '', domain: row.domain, apiUrl: row.apiUrl };
  }

  function mayConfigure() {
    const actor = currentActor();
    if (actor.kind === 'user' && actor.role !== 'owner' && actor.role !== 'admin') {
      throw new AppError('FORBIDDEN', 'Only owners and admins change the short-link settings');
    }
  }

  /** Makes the built-in links of `urls` (codes not taken yet). */
  async function builtinLinks(req: ShortenRequest, targets: Map<string, string>): Promise<NewShortLinkRow[]> {
    let codes = req.urls.map(() => newCode());
    const taken = await repo.takenCodes(codes);
    codes = codes.map((c) => (taken.has(c) ? newCode() : c));
    const at = clock.now();
    return req.urls.map((url, i) => ({
      createdAt: new Date(at + i),
      organizationId: req.organizationId,
      postId: req.postId,
      provider: 'builtin' as const,
      code: codes[i]!,
      shortUrl: `${deps.baseUrl}/s/${codes[i]!}`,
      originalUrl: url,
      targetUrl: targets.get(url)!,
    }));
  }

  function failureOf(e: unknown): ShortLinkFailure {
    if (e instanceof ShortenerError) {
      const where = e.kind === 'auth' ? ` (check the API key in Settings → Short links)` : '';
      return new ShortLinkFailure(`${e.message}${where}`, e.kind === 'unavailable', e.retryAfter);
    }
    throw e;
  }

  const port: LinkShortenerPort = {
    findForPost: (q: Tx | Db, postId: string) => repo.findForPost(postId, q),

    async shorten(req: ShortenRequest) {
      const settings = await repo.findSettings(req.organizationId);
      const at = clock.now();
      const vars = { platform: req.channel.identifier, channel: req.channel.name, group: req.group, post: req.postId, date: utcDay(at) };
      const targets = new Map(req.urls.map((u) => [u, applyUtm(u, settings?.utmTemplate ?? null, vars)]));
      const shortener = shortenerOf(settings?.provider ?? 'builtin');
      if (!settings || !shortener) {
        await repo.insertLinks(await builtinLinks(req, targets));
        return;
      }
      const made: NewShortLinkRow[] = [];
      try {
        for (const url of req.urls) {
          const link = await shortener.shorten(deps.http, providerSettings(settings), targets.get(url)!);
          made.push({ createdAt: new Date(at + made.length), organizationId: req.organizationId, postId: req.postId, provider: shortener.provider, providerLinkId: link.id, shortUrl: link.shortUrl, originalUrl: url, targetUrl: targets.get(url)! });
        }
      } catch (e) {
        // the links made so far are kept: a retry does not make them twice at the provider
        await repo.insertLinks(made);
        throw failureOf(e);
      }
      await repo.insertLinks(made);
    },
  };

  /** Reads fresh click totals of a post's outside links from their provider; stale figures stay on failure. */
  async function refreshClicks(organizationId: string, rows: ShortLinkRow[]): Promise<ShortLinkRow[]> {
    const now = clock.now();
    const stale = rows.filter((r) => r.provider !== 'builtin' && r.providerLinkId && (!r.clicksReadAt || now - r.clicksReadAt.getTime() > CLICKS_FRESH_MS));
    if (stale.length === 0) return rows;
    const settings = await repo.findSettings(organizationId);
    const totals: { id: string; clicks: number }[] = [];
    for (const provider of new Set(stale.map((r) => r.provider))) {
      const shortener = shortenerOf(provider);
      // links of a provider the organisation no longer uses keep their last figures
      if (!shortener || settings?.provider !== provider) continue;
      const ofProvider = stale.filter((r) => r.provider === provider);
      try {
        const counts = await shortener.clicks(deps.http, providerSettings(settings), ofProvider.map((r) => r.providerLinkId!));
        for (const r of ofProvider) {
          const n = counts.get(r.providerLinkId!);
          if (n !== undefined) totals.push({ id: r.id, clicks: n });
        }
      } catch (e) {
        if (!(e instanceof ShortenerError)) throw e;
        deps.logger?.warn({ err: e, provider }, 'short-link clicks could not be read');
      }
    }
    await repo.saveProviderClicks(totals, new Date(now));
    const byId = new Map(totals.map((t) => [t.id, t.clicks]));
    return rows.map((r) => (byId.has(r.id) ? { ...r, clicks: byId.get(r.id)!, clicksReadAt: new Date(now) } : r));
  }

  async function linksOfPost(organizationId: string, postId: string): Promise<ShortLinkRow[]> {
    if (!isUuid(postId) || !(await repo.postExists(organizationId, postId))) throw notFound('Post');
    return refreshClicks(organizationId, await repo.listForPost(organizationId, postId));
  }

  return {
    /** The publishing engine's port (`core/short-links.ts`). */
    port,

    async getSettings(organizationId: string): Promise<ShortLinkSettingsOut> {
      return settingsOut(await repo.findSettings(organizationId));
    },

    /**
     * Saves the settings after checking them with the provider (its key and domain), so a wrong
     * key is found now rather than when a post is due. The key is stored sealed.
     */
    async saveSettings(organizationId: string, body: ShortLinkSettingsBody): Promise<ShortLinkSettingsOut> {
      mayConfigure();
      const current = await repo.findSettings(organizationId);
      const utmTemplate = body.utmTemplate === undefined ? (current?.utmTemplate ?? null) : body.utmTemplate;
      const problem = utmTemplate === null ? undefined : checkUtmTemplate(utmTemplate);
      if (problem) throw fieldError('utmTemplate', problem);
      const shortener = shortenerOf(body.provider);
      if (body.provider !== 'builtin' && !shortener) throw fieldError('provider', `${body.provider} is not offered here`);
      const sameProvider = current?.provider === body.provider;
      const apiKey = body.apiKey === undefined ? (sameProvider && current?.apiKeySealed ? deps.secretBox.open(current.apiKeySealed) : null) : body.apiKey;
      const domain = body.domain === undefined ? (sameProvider ? (current?.domain ?? null) : null) : body.domain;
      const apiUrl = body.apiUrl === undefined ? (sameProvider ? (current?.apiUrl ?? null) : null) : body.apiUrl;
      if (shortener) {
        if (!apiKey) throw fieldError('apiKey', `${shortener.displayName} needs an API key`);
        if (shortener.needsDomain && !domain) throw fieldError('domain', `${shortener.displayName} needs the short domain to make links on`);
        if (shortener.needsApiUrl && !apiUrl) throw fieldError('apiUrl', `${shortener.displayName} needs the address of its API`);
        try {
          await shortener.verify(deps.http, { apiKey, domain, apiUrl });
        } catch (e) {
          if (!(e instanceof ShortenerError)) throw e;
          // the provider's message names it ("Short.io refused the API key (401): …")
          throw new AppError('SHORTENER_REJECTED', e.message, {
            fields: [{ path: e.field ?? (e.kind === 'auth' ? 'apiKey' : e.kind === 'rejected' && domain ? 'domain' : 'apiUrl'), message: e.message }],
          });
        }
      }
      const saved = await repo.saveSettings({
        organizationId,
        provider: body.provider,
        apiKeySealed: shortener && apiKey ? deps.secretBox.seal(apiKey) : null,
        domain: shortener ? domain : null,
        apiUrl: shortener ? apiUrl : null,
        utmTemplate,
        updatedAt: new Date(clock.now()),
      });
      await activity.record({
        organizationId,
        action: 'short_links.settings_changed',
        targetKind: 'short_links',
        targetId: null,
        targetName: shortener?.displayName ?? 'Built in',
        details: { provider: body.provider, domain: saved.domain, utmTemplate: saved.utmTemplate, providerAccountChanged: body.apiKey !== undefined },
      });
      return settingsOut(saved);
    },

    /** A URL as long as the organisation's short links (for length checks before they exist). */
    async sampleShortUrl(organizationId: string, q?: Tx): Promise<string> {
      return sampleUrl(await repo.findSettings(organizationId, q));
    },

    /**
     * A visit of a built-in short link: where to send it (undefined: no such code). A person's
     * GET counts as a click; crawlers, link previews, prefetches and HEAD requests count apart.
     */
    async visit(code: string, request: { method: string; userAgent: string | undefined; purpose: string | undefined }): Promise<string | undefined> {
      if (!/^[A-Za-z0-9]{4,16}$/.test(code)) return undefined;
      const link = await repo.findByCode(code);
      if (!link) return undefined;
      const bot = request.method !== 'GET' || /prefetch|preview/i.test(request.purpose ?? '') || isCrawler(request.userAgent);
      await repo.countClick(link.id, utcDay(clock.now()), bot);
      return link.targetUrl;
    },

    /** The short links of a post (and its thread's items) with their clicks. */
    async postLinks(organizationId: string, postId: string): Promise<PostLinks> {
      const rows = await linksOfPost(organizationId, postId);
      return {
        links: rows.map((r) => ({
          id: r.id,
          postId: r.postId,
          provider: r.provider,
          shortUrl: r.shortUrl,
          originalUrl: r.originalUrl,
          targetUrl: r.targetUrl,
          clicks: r.clicks,
          botClicks: r.botClicks,
          createdAt: r.createdAt.toISOString(),
        })),
      };
    },

    /**
     * The post's link clicks as an analytics series over the last `days` days (none when the post
     * has no short links): per day for built-in links, the provider's total on today for the others.
     */
    async clickSeries(organizationId: string, postId: string, days: number): Promise<AnalyticsSeries[]> {
      const rows = await refreshClicks(organizationId, await repo.listForPost(organizationId, postId));
      if (rows.length === 0) return [];
      const today = utcDay(clock.now());
      const since = utcDay(clock.now() - (days - 1) * 86_400_000);
      const byDay = new Map<string, number>();
      for (const d of await repo.dailyClicks(rows.filter((r) => r.provider === 'builtin').map((r) => r.id), since)) byDay.set(d.day, d.clicks);
      const outside = rows.filter((r) => r.provider !== 'builtin').reduce((n, r) => n + r.clicks, 0);
      if (outside > 0) byDay.set(today, (byDay.get(today) ?? 0) + outside);
      const data = [...byDay.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([date, total]) => ({ total, date }));
      if (data.length === 0) data.push({ total: 0, date: today });
      return [{ label: 'Link clicks', percentageChange: 0, data }];
    },
  };
}

export type LinksService = ReturnType<typeof createLinksService>;
