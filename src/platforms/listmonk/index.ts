import { z } from 'zod';
import { readCredentials } from '../common/credentials.js';
import { htmlToText } from '../common/html.js';
import { percentageChange } from '../common/figures.js';
import {
  PlatformError,
  type AnalyticsSeries,
  type ConnectedAccount,
  type Credentials,
  type PlatformAdapter,
  type PublishItem,
  type PublishResult,
} from '../platform.js';
import {
  allLists,
  call,
  campaignAnalytics,
  campaignUrl,
  campaigns,
  createCampaign,
  normaliseInstanceUrl,
  startCampaign,
  templates,
  uploadPicture,
  type ListmonkCredentials,
} from './client.js';
import { listmonkError } from './errors.js';
import { ListmonkCredentialsSchema, listmonkMetadata } from './metadata.js';

interface ListmonkSettings {
  subject?: string;
  preview?: string;
  list?: string;
  template?: string;
}

const DAY = 86_400_000;
/** listmonk's campaign name limit (its `stdInputMaxLen`). */
const NAME_MAX = 200;
/** Analytics are read over at most this many days back. */
const ANALYTICS_MAX_DAYS = 365;

/** The stored credentials; an older channel may keep the instance URL on the channel row instead. */
const StoredCredentials = z.object({ instanceUrl: z.string().min(1), username: z.string().min(1), token: z.string().min(1) });

function creds(ctx: { credentials: Credentials; instanceUrl?: string | null }): ListmonkCredentials {
  const instanceUrl = (ctx.credentials as { instanceUrl?: unknown }).instanceUrl ?? ctx.instanceUrl ?? undefined;
  return readCredentials({ credentials: { ...ctx.credentials, instanceUrl } }, StoredCredentials, 'listmonk');
}

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/**
 * listmonk's campaigns have no preview-text field, so the preview goes at the top of the body as
 * the usual hidden preheader: mail clients show it beside the subject, readers never see it.
 */
export function preheader(preview: string): string {
  if (preview.trim() === '') return '';
  return `<div style="display:none;max-height:0;overflow:hidden;mso-hide:all;font-size:1px;line-height:1px;color:transparent;opacity:0">${escapeHtml(preview.trim())}</div>`;
}

/** The campaign's HTML body: preheader, the post's HTML, then its pictures by their listmonk media URLs. */
export function campaignBody(item: PublishItem, preview: string, pictures: { url: string; alt: string }[]): string {
  const figures = pictures.map((p) => `<p><img src="${escapeHtml(p.url)}" alt="${escapeHtml(p.alt)}" style="max-width:100%;height:auto"></p>`).join('');
  return `${preheader(preview)}${item.content}${figures}`;
}

export const listIds = (list: string | undefined): number[] =>
  (list ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => /^\d+$/.test(s))
    .map(Number);

const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * Creates the listmonk adapter: a self-hosted instance (the URL the user typed, guarded), an API
 * user and its token (HTTP Basic; before v4 the admin user and password). A post becomes a
 * campaign to the chosen lists, created as a draft, then started.
 */
export function createListmonkAdapter(): PlatformAdapter {
  return {
    metadata: listmonkMetadata,

    async connectWithCredentials(input, ctx): Promise<ConnectedAccount> {
      const parsed = ListmonkCredentialsSchema.parse(input);
      const c: ListmonkCredentials = { instanceUrl: normaliseInstanceUrl(parsed.instanceUrl), username: parsed.username.trim(), token: parsed.token };
      let res;
      try {
        res = await call(ctx, c, 'GET', '/api/lists?page=1&per_page=1');
      } catch (e) {
        // The request never got an answer: no such host, refused, a blocked address, a timeout.
        if (e instanceof PlatformError) throw new PlatformError('rejected', `listmonk could not be reached at ${c.instanceUrl}: ${e.message}`, { field: 'instanceUrl' });
        throw e;
      }
      const err = listmonkError(res);
      if (err) {
        if (err.kind === 'transient' || err.kind === 'rate_limited') throw err;
        if (err.kind === 'reconnect_required') throw new PlatformError('rejected', `listmonk refused the API user and token: ${err.message}`, { field: 'token', status: err.details.status });
        if (res.status === 403) throw new PlatformError('rejected', `The API user's role may not read lists: ${err.message}`, { field: 'username', status: 403 });
        throw new PlatformError('rejected', `${c.instanceUrl} does not answer as a listmonk instance (HTTP ${res.status}: ${err.message})`, { field: 'instanceUrl', status: res.status });
      }
      // The site name names the channel, where the role may read settings.
      let siteName: string | undefined;
      const settings = await call(ctx, c, 'GET', '/api/settings').catch(() => undefined);
      if (settings && !listmonkError(settings)) {
        const name = (settings.body as { data?: Record<string, unknown> }).data?.['app.site_name'];
        if (typeof name === 'string' && name.trim() !== '') siteName = name.trim();
      }
      const host = new URL(c.instanceUrl).host;
      return {
        internalId: `${c.instanceUrl}#${c.username}`,
        name: siteName ?? host,
        profile: `${c.username}@${host}`,
        picture: null,
        credentials: { ...c } satisfies ListmonkCredentials,
        expiresAt: null,
      };
    },

    validate() {
      return [];
    },

    /**
     * Not idempotent: two steps, create the campaign (a draft) then start it. If the start fails
     * after the draft was made, the draft stays unsent in listmonk; a retry makes a new campaign,
     * so no one is mailed twice.
     */
    async publish({ item, settings }, ctx): Promise<PublishResult> {
      const c = creds(ctx);
      const s = settings as ListmonkSettings;
      const subject = s.subject?.trim();
      if (!subject) throw new PlatformError('rejected', 'A listmonk campaign needs a subject (settings.subject)');
      const lists = listIds(s.list);
      if (lists.length === 0) throw new PlatformError('rejected', 'A listmonk campaign needs a list (settings.list)');
      const pictures: { url: string; alt: string }[] = [];
      for (const m of item.media) pictures.push({ url: await uploadPicture(ctx, c, m), alt: m.alt ?? '' });
      const templateId = s.template && /^\d+$/.test(s.template) ? Number(s.template) : undefined;
      const created = await createCampaign(ctx, c, {
        name: subject.slice(0, NAME_MAX),
        subject,
        lists,
        type: 'regular',
        content_type: 'html',
        body: campaignBody(item, s.preview ?? '', pictures),
        altbody: [s.preview?.trim(), htmlToText(item.content)].filter(Boolean).join('\n\n'),
        headers: [],
        ...(templateId ? { template_id: templateId } : {}),
      });
      await startCampaign(ctx, c, created.id);
      return { status: 'published', id: String(created.id), url: campaignUrl(c, created.id) };
    },

    /** `list`: the instance's lists; `templates`: its campaign templates. */
    async runTool(methodName, _data, ctx) {
      const c = creds(ctx);
      if (methodName === 'list') {
        const rows = await allLists(ctx, c);
        return rows.map((l) => ({ id: String(l.id), name: l.name, ...('subscriber_count' in l ? { subscribers: l.subscriber_count } : {}) }));
      }
      if (methodName === 'templates') {
        const rows = await templates(ctx, c);
        return rows.filter((t) => t.type === 'campaign' || t.type === 'campaign_visual').map((t) => ({ id: String(t.id), name: t.name, isDefault: t.is_default }));
      }
      throw new PlatformError('unsupported', `listmonk has no tool "${methodName}"`);
    },

    /**
     * The instance's campaigns that were started, newest first (drafts are left out: a draft was
     * never mailed, so it must not pass for a published post). No thread items on listmonk.
     */
    async findRecent({ since, limit, replyTo }, ctx) {
      if (replyTo) return [];
      const c = creds(ctx);
      const q = new URLSearchParams({ page: '1', per_page: String(Math.min(100, Math.max(1, limit))), order_by: 'created_at', order: 'desc' });
      const page = await campaigns(ctx, c, q);
      return page.results
        .filter((x) => x.status !== 'draft' && Date.parse(x.created_at) >= since.getTime())
        .sort((a, b) => Date.parse(b.created_at) - Date.parse(a.created_at))
        .map((x) => ({ id: String(x.id), url: campaignUrl(c, x.id), content: x.body ? htmlToText(x.body) : x.subject, createdAt: new Date(x.created_at).toISOString() }));
    },

    /** Daily views and clicks of the campaign over the last `days` (listmonk's campaign analytics). */
    async postAnalytics(postId, days, ctx): Promise<AnalyticsSeries[]> {
      const c = creds(ctx);
      if (!/^\d+$/.test(postId)) throw new PlatformError('rejected', `"${postId}" is not a listmonk campaign id`);
      const n = Math.min(ANALYTICS_MAX_DAYS, Math.max(1, Math.floor(days)));
      const today = Math.floor(ctx.clock.now() / DAY) * DAY;
      const dates = Array.from({ length: n }, (_, i) => isoDay(today - (n - 1 - i) * DAY));
      const q = new URLSearchParams({ id: postId, from: dates[0]!, to: dates.at(-1)! });
      const series: AnalyticsSeries[] = [];
      for (const [label, type] of [
        ['Views', 'views'],
        ['Clicks', 'clicks'],
      ] as const) {
        const rows = await campaignAnalytics(ctx, c, type, q);
        const byDay = new Map<string, number>();
        for (const r of rows) {
          const day = String(r.timestamp).slice(0, 10);
          byDay.set(day, (byDay.get(day) ?? 0) + (Number(r.count) || 0));
        }
        const data = dates.map((date) => ({ date, total: byDay.get(date) ?? 0 }));
        series.push({ label, percentageChange: percentageChange(data), data });
      }
      return series;
    },
  };
}
