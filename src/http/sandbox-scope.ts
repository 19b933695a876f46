import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError, validationError } from '../errors.js';
import type { SandboxService } from '../modules/sandbox/sandbox.service.js';

/**
 * A sandbox key (`tdk_test_…`, issue 28) sees and touches the organisation's sandbox channels and
 * the posts on them only: any other channel or post is NOT_FOUND to it, exactly as another
 * organisation's would be (POST /posts: 400 naming the field, as for one), lists leave the others out, and it cannot connect a live channel.
 * The organisation's shared things (media, webhooks, client groups, notifications) stay shared.
 * Checked here, on the API's routes by their own parameters, so no service learns about keys.
 */
type Scope = SandboxService['scope'];

/**
 * The channels an autopilot thing reaches (a repeating post's, an evergreen queue's — empty = every
 * channel — or a feed's), undefined when the organisation has no such thing. A sandbox key sees
 * one only when every channel it reaches is a sandbox channel.
 */
export interface ScopeOwners {
  series(organizationId: string, id: string): Promise<string[] | undefined>;
  evergreen(organizationId: string, id: string): Promise<string[] | undefined>;
  feed(organizationId: string, id: string): Promise<string[] | undefined>;
}

const API = '/public/v1';
/** routes whose `:id` / `:integrationId` is a channel */
const CHANNEL_ROUTES = new Set(['/integrations/:id', '/integrations/:id/account', '/integration-settings/:id', '/integration-trigger/:id', '/find-slot/:id', '/analytics/:integrationId']);
/** routes whose `:id` / `:postId` is a post */
const POST_ROUTES = new Set(['/posts/:id', '/posts/:id/date', '/posts/:id/missing', '/posts/:id/release-id', '/posts/:id/settings', '/posts/:id/status', '/analytics/post/:postId']);
const GROUP_ROUTES = new Set(['/posts/group/:group', '/posts/group/:group/date', '/posts/group/:group/submit', '/posts/group/:group/approve', '/posts/group/:group/request-changes']);
/** connecting a live channel */
const LIVE_CONNECT = new Set(['/social/:identifier']);
/** routes whose `:id` is a repeating post, an evergreen queue or a feed, and the name a 404 gives */
const OWNED_ROUTES = new Map<string, [keyof ScopeOwners, string]>([
  ['/series/:id', ['series', 'Series']],
  ['/evergreen/:id', ['evergreen', 'Evergreen queue']],
  ['/evergreen/:id/items', ['evergreen', 'Evergreen queue']],
  ['/evergreen/:id/items/:itemId', ['evergreen', 'Evergreen queue']],
  ['/evergreen/:id/fill', ['evergreen', 'Evergreen queue']],
  ['/evergreen/:id/plan', ['evergreen', 'Evergreen queue']],
  ['/evergreen/:id/channels/:integrationId/resume', ['evergreen', 'Evergreen queue']],
  ['/feeds/:id', ['feed', 'Feed']],
  ['/feeds/:id/items', ['feed', 'Feed']],
  ['/feeds/:id/poll', ['feed', 'Feed']],
]);
/** lists of those, by the field that holds them (a bare array: '') and what names their channels */
const OWNED_LISTS = new Map<string, { field: string; channels: (item: Record<string, unknown>) => unknown }>([
  ['/series', { field: 'series', channels: (s) => ((s.template as { posts?: { integration?: { id?: unknown } }[] } | undefined)?.posts ?? []).map((p) => p.integration?.id) }],
  ['/evergreen', { field: '', channels: (q) => q.integrations }],
  ['/feeds', { field: 'feeds', channels: (f) => f.integrationIds }],
]);

/** every channel is one of `allowed` (and there is at least one: an empty evergreen list means all) */
const onlySandbox = (ids: unknown, allowed: Set<string>) => Array.isArray(ids) && ids.length > 0 && ids.every((id) => typeof id === 'string' && allowed.has(id));

const notFound = (what: string) => new AppError('NOT_FOUND', `${what} not found`);

export function installSandboxScope(app: FastifyInstance, scope: Scope, owners: ScopeOwners) {
  app.addHook('preHandler', async (req: FastifyRequest) => {
    if (!req.auth?.sandbox) return;
    const url = req.routeOptions.url?.startsWith(API) ? req.routeOptions.url.slice(API.length) : undefined;
    if (url === undefined) return;
    const org = req.auth.organizationId;
    const params = (req.params ?? {}) as Record<string, string>;
    if (LIVE_CONNECT.has(url)) {
      throw new AppError('FORBIDDEN', 'A sandbox key connects sandbox channels only: POST /public/v1/sandbox/channels');
    }
    const owned = OWNED_ROUTES.get(url);
    if (owned) {
      const ids = await owners[owned[0]](org, params.id ?? '');
      if (!onlySandbox(ids, await scope.channelIds(org))) throw notFound(owned[1]);
    }
    if (CHANNEL_ROUTES.has(url)) {
      if ((await scope.channel(org, params.id ?? params.integrationId ?? '')) !== true) throw notFound('Integration');
    } else if (POST_ROUTES.has(url)) {
      if ((await scope.post(org, params.id ?? params.postId ?? '')) !== true) throw notFound('Post');
    } else if (GROUP_ROUTES.has(url)) {
      if ((await scope.group(org, params.group ?? '')) !== true) throw notFound('Post group');
    } else if (((url === '/posts' || url === '/series') && req.method === 'POST') || (url === '/series/:id' && req.method === 'PATCH')) {
      // As a channel of another organisation is answered: the field named.
      const body = req.body as { posts?: { integration?: { id?: unknown } }[] } | undefined;
      const allowed = await scope.channelIds(org);
      const fields = (body?.posts ?? []).flatMap((p, i) =>
        typeof p.integration?.id === 'string' && !allowed.has(p.integration.id) ? [{ path: `posts.${i}.integration.id`, message: 'No channel with this id in your organisation' }] : [],
      );
      if (fields.length > 0) throw validationError(fields);
    } else if ((url === '/feeds' && req.method === 'POST') || (url === '/feeds/:id' && req.method === 'PATCH')) {
      const body = req.body as { integrationIds?: unknown[] } | undefined;
      const allowed = await scope.channelIds(org);
      const fields = (body?.integrationIds ?? []).flatMap((id, i) => (typeof id === 'string' && !allowed.has(id) ? [{ path: `integrationIds.${i}`, message: `Unknown channel ${id}` }] : []));
      if (fields.length > 0) throw validationError(fields);
    } else if ((url === '/evergreen' && req.method === 'POST') || (url === '/evergreen/:id' && req.method === 'PATCH')) {
      // An evergreen queue filled by a sandbox key's request names its sandbox channels (empty would mean all, live ones too).
      const body = req.body as { integrations?: unknown[] } | undefined;
      const allowed = await scope.channelIds(org);
      if (req.method === 'POST' && (body?.integrations ?? []).length === 0) throw validationError([{ path: 'integrations', message: 'A sandbox key names the sandbox channels the queue fills' }]);
      const fields = (body?.integrations ?? []).flatMap((id, i) => (typeof id === 'string' && !allowed.has(id) ? [{ path: `integrations.${i}`, message: `Unknown channel ${id}` }] : []));
      if (req.method === 'PATCH' && body?.integrations !== undefined && body.integrations.length === 0) fields.push({ path: 'integrations', message: 'A sandbox key names the sandbox channels the queue fills' });
      if (fields.length > 0) throw validationError(fields);
    }
  });

  // Lists leave out what a sandbox key may not see.
  app.addHook('preSerialization', async (req: FastifyRequest, _reply, payload: unknown) => {
    if (!req.auth?.sandbox || req.method !== 'GET') return payload;
    const url = req.routeOptions.url?.slice(API.length);
    if (url === '/integrations' && Array.isArray(payload)) return (payload as { sandbox?: boolean }[]).filter((i) => i.sandbox === true);
    const list = url === undefined ? undefined : OWNED_LISTS.get(url);
    if (list && payload && typeof payload === 'object') {
      const allowed = await scope.channelIds(req.auth.organizationId);
      const keep = (items: Record<string, unknown>[]) => items.filter((item) => onlySandbox(list.channels(item), allowed));
      if (list.field === '' && Array.isArray(payload)) return keep(payload as Record<string, unknown>[]);
      const items = (payload as Record<string, unknown>)[list.field];
      if (Array.isArray(items)) return { ...payload, [list.field]: keep(items as Record<string, unknown>[]) };
    }
    if (url === '/posts' && payload && typeof payload === 'object' && Array.isArray((payload as { posts?: unknown }).posts)) {
      const allowed = await scope.channelIds(req.auth.organizationId);
      const list = payload as { posts: { integration: { id: string } }[] };
      return { ...list, posts: list.posts.filter((p) => allowed.has(p.integration.id)) };
    }
    if (url === '/analytics/overview' && payload && typeof payload === 'object') {
      const allowed = await scope.channelIds(req.auth.organizationId);
      const o = payload as { channels: { id: string }[]; best: { integrationId: string } | null; worst: { integrationId: string } | null };
      return {
        ...o,
        channels: o.channels.filter((c) => allowed.has(c.id)),
        best: o.best && allowed.has(o.best.integrationId) ? o.best : null,
        worst: o.worst && allowed.has(o.worst.integrationId) ? o.worst : null,
      };
    }
    return payload;
  });
}
