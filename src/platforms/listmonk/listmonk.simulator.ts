import { randomUUID } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { readMultipart, startSimulator, type InjectedKind, type ReceivedMedia, type Simulator } from '../simulator.js';

/**
 * A simulator of a self-hosted listmonk (v4+) instance's API, at the instance's root:
 * `/api/settings`, `/api/lists`, `/api/templates`, `/api/media` (multipart upload),
 * `/api/campaigns` (create, list), `/api/campaigns/{id}/status` and
 * `/api/campaigns/analytics/{type}`.
 *
 * Faithful parts (listmonk's `internal/auth` and `cmd/campaigns.go`): API users authenticate with
 * `Authorization: Basic base64(user:token)` or `token user:token`; wrong ones get 403
 * `{"message":"invalid API credentials"}`, a malformed header 400; each route checks its
 * permission (`permission denied: campaigns:manage_all`…) unless the user is a Super Admin.
 * Successes are `{ "data": … }` (HTTP 200, creation included); errors `{ "message" }` with the
 * status. A campaign needs a name (1–200), a subject (1–5000), list ids that exist, a known type
 * and content type, an existing campaign template when one is named, and `headers` as a list of
 * objects; it is created as a `draft` and started with `PUT …/status {"status":"running"}`
 * (finished or cancelled campaigns cannot be changed). Media uploads check the field (`file`) and
 * the file extension, keep the sha256 of the bytes and answer the file's public URL under
 * `/uploads/`; a campaign body's `<img src>` pointing at one of them is recorded with those bytes.
 * Analytics need `id` and `from`/`to` dates (10–30 characters), as listmonk checks them.
 */

export const LISTMONK_ROOT = 'https://lists.example.com';

export interface ListmonkUserRecord {
  username: string;
  token: string;
  /** `super` (Super Admin: everything) or the role's permissions */
  permissions: 'super' | string[];
}

export interface ListmonkListRecord {
  id: number;
  name: string;
  type?: 'public' | 'private';
  subscriberCount?: number;
}

export interface ListmonkTemplateRecord {
  id: number;
  name: string;
  type: 'campaign' | 'campaign_visual' | 'tx';
  isDefault?: boolean;
}

export interface ListmonkMediaRecord extends ReceivedMedia {
  id: number;
  filename: string;
  url: string;
}

export interface ListmonkCampaignRecord {
  id: number;
  uuid: string;
  name: string;
  subject: string;
  lists: number[];
  type: string;
  contentType: string;
  body: string;
  altbody: string | null;
  templateId: number;
  headers: Record<string, string>[];
  status: 'draft' | 'scheduled' | 'running' | 'paused' | 'cancelled' | 'finished';
  createdAt: string;
  createdBy: string;
  /** uploaded media the body shows, in order */
  images: ListmonkMediaRecord[];
}

export interface ListmonkSimulatorOptions {
  /** the instance's public root URL (`app.root_url`), which media URLs start with */
  rootUrl?: string;
  siteName?: string;
}

export interface ListmonkSimulator extends Simulator {
  addUser(u: ListmonkUserRecord): void;
  addList(l: ListmonkListRecord): void;
  addTemplate(t: ListmonkTemplateRecord): void;
  /** daily counts for `GET /api/campaigns/analytics/{type}` */
  setAnalytics(campaignId: number, type: 'views' | 'clicks' | 'bounces', days: { date: string; count: number }[]): void;
  campaigns: ListmonkCampaignRecord[];
  media: ListmonkMediaRecord[];
  lookup(id: string): { text: string; mediaSha256: string[] } | undefined;
  injectKind(kind: InjectedKind): void;
}

const MEDIA_EXTENSIONS = ['jpg', 'jpeg', 'png', 'gif', 'svg', 'webp'];
const CONTENT_TYPES = ['richtext', 'html', 'markdown', 'plain', 'visual'];
const fail = (reply: FastifyReply, status: number, message: string) => reply.status(status).send({ message });

export async function startListmonkSimulator(opts: ListmonkSimulatorOptions = {}): Promise<ListmonkSimulator> {
  const rootUrl = opts.rootUrl ?? LISTMONK_ROOT;
  const users = new Map<string, ListmonkUserRecord>();
  const lists = new Map<number, ListmonkListRecord>();
  const templates = new Map<number, ListmonkTemplateRecord>([
    [1, { id: 1, name: 'Default campaign template', type: 'campaign', isDefault: true }],
    [2, { id: 2, name: 'Default archive template', type: 'campaign' }],
    [3, { id: 3, name: 'Sample transactional template', type: 'tx' }],
  ]);
  const campaigns: ListmonkCampaignRecord[] = [];
  const media: ListmonkMediaRecord[] = [];
  const analytics = new Map<string, { date: string; count: number }[]>();
  let campaignSeq = 0;
  let mediaSeq = 0;

  /** The API user of the request, if its credentials are right and its role has `perm`; else answers the refusal. */
  function allowed(req: FastifyRequest, reply: FastifyReply, ...perms: string[]): ListmonkUserRecord | undefined {
    const h = String(req.headers.authorization ?? '').trim();
    let pair: string[];
    if (h.startsWith('token')) pair = h.slice(5).trim().split(/:(.*)/s, 2);
    else if (h.startsWith('Basic')) pair = Buffer.from(h.slice(5).trim(), 'base64').toString().split(/:(.*)/s, 2);
    else {
      void fail(reply, 403, 'invalid session');
      return undefined;
    }
    if (pair.length < 2 || !pair[0] || !pair[1]) {
      void fail(reply, 400, 'empty `api_key` or `token`');
      return undefined;
    }
    const user = users.get(pair[0]);
    if (!user || user.token !== pair[1]) {
      void fail(reply, 403, 'invalid API credentials');
      return undefined;
    }
    if (user.permissions !== 'super' && !perms.some((p) => (user.permissions as string[]).includes(p))) {
      void fail(reply, 403, `permission denied: ${perms[0]}`);
      return undefined;
    }
    return user;
  }

  const campaignView = (c: ListmonkCampaignRecord, withBody = true) => ({
    id: c.id,
    uuid: c.uuid,
    name: c.name,
    subject: c.subject,
    from_email: 'Acme <news@lists.example.com>',
    type: c.type,
    status: c.status,
    content_type: c.contentType,
    ...(withBody ? { body: c.body, altbody: c.altbody } : {}),
    template_id: c.templateId,
    headers: c.headers,
    lists: c.lists.map((id) => ({ id, name: lists.get(id)?.name ?? '' })),
    tags: [],
    messenger: 'email',
    archive: false,
    created_at: c.createdAt,
    updated_at: c.createdAt,
    started_at: c.status === 'draft' ? null : c.createdAt,
    to_send: 0,
    sent: 0,
    views: 0,
    clicks: 0,
    bounces: 0,
  });

  const sim = await startSimulator((app) => {
    app.get('/api/settings', async (req, reply) => {
      if (!allowed(req, reply, 'settings:get')) return reply;
      return { data: { 'app.site_name': opts.siteName ?? 'Acme Newsletter', 'app.root_url': rootUrl, 'app.from_email': 'Acme <news@lists.example.com>' } };
    });

    app.get('/api/lists', async (req: FastifyRequest<{ Querystring: Record<string, string> }>, reply) => {
      if (!allowed(req, reply, 'lists:get_all', 'lists:get')) return reply;
      const all = [...lists.values()].sort((a, b) => a.id - b.id);
      const rows = all.map((l) => ({ id: l.id, uuid: `list-${l.id}`, name: l.name, type: l.type ?? 'private', optin: 'single', tags: [], subscriber_count: l.subscriberCount ?? 0 }));
      if (req.query.minimal === 'true') return { data: rows };
      const perPage = req.query.per_page === 'all' ? rows.length || 1 : Math.max(1, Number(req.query.per_page ?? 20) || 20);
      const page = Math.max(1, Number(req.query.page ?? 1) || 1);
      return { data: { results: rows.slice((page - 1) * perPage, page * perPage), query: '', total: rows.length, per_page: perPage, page } };
    });

    app.get('/api/templates', async (req: FastifyRequest<{ Querystring: Record<string, string> }>, reply) => {
      if (!allowed(req, reply, 'templates:get')) return reply;
      return {
        data: [...templates.values()].map((t) => ({ id: t.id, name: t.name, type: t.type, is_default: t.isDefault ?? false, ...(req.query.no_body === 'true' ? {} : { body: '<html>{{ template "content" . }}</html>' }) })),
      };
    });

    app.post('/api/media', async (req, reply) => {
      if (!allowed(req, reply, 'media:manage')) return reply;
      if (!req.isMultipart()) return fail(reply, 400, 'Invalid file.');
      const { files } = await readMultipart(req);
      const file = files.find((f) => f.field === 'file');
      if (!file) return fail(reply, 400, 'Invalid file.');
      const ext = file.filename.split('.').pop()?.toLowerCase() ?? '';
      if (!MEDIA_EXTENSIONS.includes(ext)) return fail(reply, 400, `Unsupported file type (${ext}).`);
      const id = ++mediaSeq;
      const filename = media.some((m) => m.filename === file.filename) ? file.filename.replace(/(\.[^.]+)$/, `-${id}$1`) : file.filename;
      const record: ListmonkMediaRecord = { id, filename, url: `${rootUrl}/uploads/${filename}`, sha256: file.sha256, size: file.size, mimeType: file.mimeType };
      media.push(record);
      return {
        data: { id, uuid: randomUUID(), filename, content_type: file.mimeType, created_at: new Date().toISOString(), thumb_url: `${rootUrl}/uploads/thumb_${filename}`, provider: 'filesystem', url: record.url, meta: {} },
      };
    });

    app.post('/api/campaigns', async (req, reply) => {
      const user = allowed(req, reply, 'campaigns:manage_all');
      if (!user) return reply;
      if (!String(req.headers['content-type'] ?? '').startsWith('application/json')) return fail(reply, 400, 'Invalid JSON body.');
      const b = (req.body ?? {}) as Record<string, unknown>;
      const type = b.type ?? 'regular';
      if (type !== 'regular' && type !== 'optin') return fail(reply, 400, 'Invalid campaign type.');
      const contentType = b.content_type ?? 'richtext';
      if (typeof contentType !== 'string' || !CONTENT_TYPES.includes(contentType)) return fail(reply, 400, 'Invalid content type.');
      if (typeof b.name !== 'string' || b.name.length < 1 || b.name.length > 200) return fail(reply, 400, 'Invalid length for name.');
      if (typeof b.subject !== 'string' || b.subject.length < 1 || b.subject.length > 5000) return fail(reply, 400, 'Invalid length for subject.');
      if (!Array.isArray(b.lists) || b.lists.length === 0 || b.lists.some((l) => typeof l !== 'number' || !lists.has(l))) return fail(reply, 400, 'Invalid list IDs.');
      if (b.headers !== undefined && (!Array.isArray(b.headers) || b.headers.some((h) => typeof h !== 'object' || h === null || Array.isArray(h)))) {
        return fail(reply, 400, 'Invalid headers: must be a list of objects.');
      }
      if (b.body !== undefined && typeof b.body !== 'string') return fail(reply, 400, 'Invalid body.');
      if (typeof b.body === 'string' && /\{\{[^}]*$/.test(b.body)) return fail(reply, 400, 'Error compiling campaign body: unclosed action');
      let templateId = [...templates.values()].find((t) => t.isDefault)?.id ?? 1;
      if (b.template_id !== undefined && b.template_id !== 0) {
        const t = typeof b.template_id === 'number' ? templates.get(b.template_id) : undefined;
        if (!t || t.type === 'tx') return fail(reply, 400, 'Invalid template ID.');
        templateId = t.id;
      }
      const body = typeof b.body === 'string' ? b.body : '';
      const images = [...body.matchAll(/<img\b[^>]*\bsrc\s*=\s*"([^"]*)"/gi)]
        .map((m) => media.find((x) => x.url === m[1]!.replace(/&amp;/g, '&')))
        .filter((m): m is ListmonkMediaRecord => m !== undefined);
      const record: ListmonkCampaignRecord = {
        id: ++campaignSeq,
        uuid: randomUUID(),
        name: b.name,
        subject: b.subject,
        lists: b.lists as number[],
        type,
        contentType,
        body,
        altbody: typeof b.altbody === 'string' ? b.altbody : null,
        templateId,
        headers: (b.headers ?? []) as Record<string, string>[],
        status: 'draft',
        createdAt: new Date().toISOString(),
        createdBy: user.username,
        images,
      };
      campaigns.push(record);
      return { data: campaignView(record) };
    });

    app.get('/api/campaigns', async (req: FastifyRequest<{ Querystring: Record<string, string> }>, reply) => {
      if (!allowed(req, reply, 'campaigns:get_all', 'campaigns:get')) return reply;
      const desc = (req.query.order ?? 'desc').toLowerCase() !== 'asc';
      const rows = [...campaigns].sort((a, b) => (desc ? b.id - a.id : a.id - b.id));
      const perPage = req.query.per_page === 'all' ? rows.length || 1 : Math.max(1, Number(req.query.per_page ?? 20) || 20);
      const page = Math.max(1, Number(req.query.page ?? 1) || 1);
      return { data: { results: rows.slice((page - 1) * perPage, page * perPage).map((c) => campaignView(c, req.query.no_body !== 'true')), query: '', total: rows.length, per_page: perPage, page } };
    });

    app.put('/api/campaigns/:id/status', async (req: FastifyRequest<{ Params: { id: string } }>, reply) => {
      if (!allowed(req, reply, 'campaigns:manage_all', 'campaigns:manage')) return reply;
      const id = Number(req.params.id);
      if (!(id >= 1)) return fail(reply, 400, 'Invalid ID.');
      const c = campaigns.find((x) => x.id === id);
      if (!c) return fail(reply, 404, 'Campaign not found.');
      const status = (req.body as { status?: unknown } | undefined)?.status;
      const allowedNext: Record<string, string[]> = { draft: ['running', 'scheduled'], scheduled: ['draft', 'running', 'cancelled'], running: ['paused', 'cancelled'], paused: ['running', 'cancelled'] };
      if (typeof status !== 'string' || !(allowedNext[c.status] ?? []).includes(status)) return fail(reply, 400, 'Cannot change campaign status.');
      c.status = status as ListmonkCampaignRecord['status'];
      return { data: campaignView(c) };
    });

    app.get('/api/campaigns/analytics/:type', async (req: FastifyRequest<{ Params: { type: string }; Querystring: Record<string, string | string[]> }>, reply) => {
      if (!allowed(req, reply, 'campaigns:get_analytics')) return reply;
      const ids = ([] as string[]).concat(req.query.id ?? []).map(Number);
      if (ids.length === 0) return fail(reply, 400, 'Missing fields: `id`');
      if (ids.some((x) => !(x >= 1))) return fail(reply, 400, 'Invalid IDs');
      const from = String(req.query.from ?? '');
      const to = String(req.query.to ?? '');
      if (from.length < 10 || from.length > 30 || to.length < 10 || to.length > 30) return fail(reply, 400, 'Invalid dates');
      const type = req.params.type;
      if (!['views', 'clicks', 'bounces', 'links'].includes(type)) return fail(reply, 400, 'Invalid analytics type');
      const rows = ids.flatMap((id) =>
        (analytics.get(`${id}:${type}`) ?? [])
          .filter((d) => d.date >= from.slice(0, 10) && d.date <= to.slice(0, 10))
          .map((d) => ({ campaign_id: id, count: d.count, timestamp: `${d.date}T00:00:00Z` })),
      );
      return { data: rows };
    });
  });

  return Object.assign(sim, {
    campaigns,
    media,
    addUser: (u: ListmonkUserRecord) => void users.set(u.username, u),
    addList: (l: ListmonkListRecord) => void lists.set(l.id, l),
    addTemplate: (t: ListmonkTemplateRecord) => void templates.set(t.id, t),
    setAnalytics: (campaignId: number, type: 'views' | 'clicks' | 'bounces', days: { date: string; count: number }[]) => void analytics.set(`${campaignId}:${type}`, days),
    lookup(id: string) {
      const c = campaigns.find((x) => String(x.id) === id);
      return c ? { text: c.body, mediaSha256: c.images.map((i) => i.sha256) } : undefined;
    },
    injectKind(kind: InjectedKind) {
      const path = /^\/api\/campaigns$/;
      switch (kind) {
        case 'auth_expired':
        case 'revoked':
          return sim.inject({ path, status: 403, body: { message: 'invalid API credentials' } });
        case 'rate_limited':
          // listmonk has no rate limit; the reverse proxy in front of an instance may have one.
          return sim.inject({ path, status: 429, headers: { 'retry-after': '20' }, body: { message: 'Too many requests' } });
        case 'server_error':
          return sim.inject({ path, status: 500, body: { message: 'Error creating campaign: pq: connection refused' } });
        case 'rejected':
          return sim.inject({ path, status: 400, body: { message: 'Invalid list IDs.' } });
        case 'error_in_200':
          return sim.inject({ path, status: 200, body: { message: 'Invalid list IDs.' } });
      }
    },
  });
}
