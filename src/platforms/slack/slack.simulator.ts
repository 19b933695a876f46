import { createHash, randomBytes } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { readMultipart, startSimulator, type InjectedKind, type Simulator, type UploadedFile } from '../simulator.js';

/**
 * A simulator of the Slack Web API the adapter uses, on the real paths of `https://slack.com`
 * (OAuth v2 authorise page approving at once, `/api/oauth.v2.access`, `/api/<method>`, threads
 * read with conversations.replies and its cursor) and of `https://files.slack.com` (the
 * pre-signed upload URLs). Like Slack, every error is HTTP 200 `{ ok: false, error }` except rate
 * limits (429 + `Retry-After`) and outages; tokens carry the scopes granted on the authorise page
 * and methods refuse a token without theirs (`missing_scope`).
 */
export interface SlackWorkspaceRecord {
  id: string;
  name: string;
  domain: string;
  icon: string | null;
  botUserId: string;
  botId: string;
}

export interface SlackChannelRecord {
  id: string;
  teamId: string;
  name: string;
  isGeneral: boolean;
  isPrivate: boolean;
  isArchived: boolean;
  /** the app's bot user is a member */
  botMember: boolean;
}

export interface SlackMessageRecord {
  ts: string;
  channel: string;
  text: string;
  /** replies: the parent's ts */
  threadTs?: string;
  user: string;
  botId?: string;
  files: UploadedFile[];
}

interface FileRecord {
  id: string;
  teamId: string;
  filename: string;
  length: number;
  altTxt?: string;
  key: string;
  uploaded?: UploadedFile;
  /** where it was shared: channel → message ts */
  shares: Map<string, { ts: string; threadTs?: string }>;
}

export interface SlackSimulator extends Simulator {
  readonly clientId: string;
  readonly clientSecret: string;
  workspaces: Map<string, SlackWorkspaceRecord>;
  channels: Map<string, SlackChannelRecord>;
  messages: SlackMessageRecord[];
  /** the first added is the one the authorisation page installs into */
  addWorkspace(ws: { id: string; name: string; domain: string; icon?: string | null }, channels: (Pick<SlackChannelRecord, 'id' | 'name'> & Partial<Omit<SlackChannelRecord, 'id' | 'name' | 'teamId'>>)[]): SlackWorkspaceRecord;
  /** someone else's message */
  addMessage(channel: string, text: string, user?: string): SlackMessageRecord;
  /** someone else's reply in the thread of `threadTs` (or, given the bot's user id, one of the bot's) */
  addReply(channel: string, threadTs: string, text: string, user?: string): SlackMessageRecord;
  /** files.completeUploadExternal answers before the share exists (empty `shares`), as Slack sometimes does */
  sharesDelayed: boolean;
  /** the app is uninstalled: every token answers `token_revoked` */
  revokeTokens(): void;
  injectKind(kind: InjectedKind): void;
}

const MESSAGE_PATH = /^\/api\/(chat\.postMessage|files\.completeUploadExternal)/;

const SCOPE_OF: Record<string, string> = {
  'team.info': 'team:read',
  'conversations.list': 'channels:read',
  'conversations.join': 'channels:join',
  'conversations.history': 'channels:history',
  'chat.postMessage': 'chat:write',
  'files.getUploadURLExternal': 'files:write',
  'files.completeUploadExternal': 'files:write',
  'files.info': 'files:read',
};

export async function startSlackSimulator(opts: { clientId?: string; clientSecret?: string } = {}): Promise<SlackSimulator> {
  const clientId = opts.clientId ?? '1111111111.2222222222';
  const clientSecret = opts.clientSecret ?? 'slack-client-secret';
  const workspaces = new Map<string, SlackWorkspaceRecord>();
  const channels = new Map<string, SlackChannelRecord>();
  const messages: SlackMessageRecord[] = [];
  const files = new Map<string, FileRecord>();
  const codes = new Map<string, { redirectUri: string; teamId: string; scopes: string[]; used: boolean }>();
  const tokens = new Map<string, { teamId: string; scopes: Set<string>; revoked: boolean }>();
  let seq = 0;
  const state = { sharesDelayed: false };

  const nextTs = () => `${Math.floor(Date.now() / 1000)}.${String(++seq).padStart(6, '0')}`;
  const nextId = (prefix: string) => `${prefix}0${randomBytes(5).toString('hex').toUpperCase()}`;

  function postMessage(channel: SlackChannelRecord, fields: { text: string; threadTs?: string; user: string; botId?: string; files?: UploadedFile[] }): SlackMessageRecord {
    const m: SlackMessageRecord = { ts: nextTs(), channel: channel.id, text: fields.text, user: fields.user, files: fields.files ?? [], ...(fields.threadTs ? { threadTs: fields.threadTs } : {}), ...(fields.botId ? { botId: fields.botId } : {}) };
    messages.push(m);
    return m;
  }

  const messageJson = (m: SlackMessageRecord, teamId: string) => ({
    type: 'message',
    ts: m.ts,
    text: m.text,
    user: m.user,
    team: teamId,
    ...(m.botId ? { bot_id: m.botId } : {}),
    ...(m.threadTs ? { thread_ts: m.threadTs } : {}),
    ...(m.files.length ? { files: m.files.map((f) => ({ name: f.filename, mimetype: f.mimeType, size: f.size })), upload: true } : {}),
  });

  const channelJson = (c: SlackChannelRecord) => ({
    id: c.id,
    name: c.name,
    name_normalized: c.name,
    is_channel: !c.isPrivate,
    is_group: false,
    is_private: c.isPrivate,
    is_general: c.isGeneral,
    is_archived: c.isArchived,
    is_member: c.botMember,
    context_team_id: c.teamId,
  });

  const fileJson = (f: FileRecord) => {
    const shares: Record<string, Record<string, unknown[]>> = {};
    for (const [channelId, s] of f.shares) {
      const c = channels.get(channelId)!;
      const kind = c.isPrivate ? 'private' : 'public';
      (shares[kind] ??= {})[channelId] = [{ ts: s.ts, channel_name: c.name, team_id: f.teamId, share_user_id: workspaces.get(f.teamId)!.botUserId, reply_users: [], reply_count: 0, ...(s.threadTs ? { thread_ts: s.threadTs } : {}) }];
    }
    return { id: f.id, name: f.filename, title: f.filename, mimetype: f.uploaded?.mimeType, size: f.uploaded?.size, ...(f.altTxt ? { alt_txt: f.altTxt } : {}), shares };
  };

  /** Arguments from the query, a JSON body or a form body, as Slack merges them. */
  function argsOf(req: FastifyRequest): Record<string, unknown> {
    const body = req.body && typeof req.body === 'object' && !Buffer.isBuffer(req.body) ? (req.body as Record<string, unknown>) : {};
    return { ...(req.query as Record<string, unknown>), ...body };
  }

  const sim = await startSimulator((app) => {
    app.addContentTypeParser('application/octet-stream', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));

    app.get('/oauth/v2/authorize', async (req: FastifyRequest<{ Querystring: Record<string, string | undefined> }>, reply) => {
      const q = req.query;
      if (q.client_id !== clientId) return reply.status(400).type('text/html').send('<p>Invalid client_id parameter</p>');
      if (!q.redirect_uri) return reply.status(400).type('text/html').send('<p>Missing redirect_uri</p>');
      const ws = q.team ? workspaces.get(q.team) : workspaces.values().next().value;
      if (!ws) return reply.status(400).type('text/html').send('<p>No workspace</p>');
      const code = `${ws.id}.${randomBytes(12).toString('hex')}`;
      codes.set(code, { redirectUri: q.redirect_uri, teamId: ws.id, scopes: (q.scope ?? '').split(',').filter(Boolean), used: false });
      const back = new URL(q.redirect_uri);
      back.searchParams.set('code', code);
      if (q.state) back.searchParams.set('state', q.state);
      return reply.redirect(back.toString(), 302);
    });

    app.post('/api/oauth.v2.access', async (req) => {
      const a = argsOf(req) as Record<string, string | undefined>;
      let id = a.client_id;
      let secret = a.client_secret;
      const basic = /^Basic (.+)$/i.exec(req.headers.authorization ?? '');
      if (basic) [id, secret] = Buffer.from(basic[1]!, 'base64').toString().split(':').map(decodeURIComponent);
      if (id !== clientId) return { ok: false, error: 'invalid_client_id' };
      if (secret !== clientSecret) return { ok: false, error: 'bad_client_secret' };
      const grant = codes.get(a.code ?? '');
      if (!grant || grant.used) return { ok: false, error: 'invalid_code' };
      grant.used = true;
      if (grant.redirectUri !== a.redirect_uri) return { ok: false, error: 'bad_redirect_uri' };
      const ws = workspaces.get(grant.teamId)!;
      const token = `xoxb-${ws.id}-${randomBytes(12).toString('hex')}`;
      tokens.set(token, { teamId: ws.id, scopes: new Set(grant.scopes), revoked: false });
      return {
        ok: true,
        app_id: 'A0TIDINGS',
        authed_user: { id: 'U0INSTALLER' },
        scope: grant.scopes.join(','),
        token_type: 'bot',
        access_token: token,
        bot_user_id: ws.botUserId,
        team: { id: ws.id, name: ws.name },
        enterprise: null,
        is_enterprise_install: false,
      };
    });

    app.post('/upload/v1/:key', async (req: FastifyRequest<{ Params: { key: string } }>, reply) => {
      const file = [...files.values()].find((f) => f.key === req.params.key);
      let uploaded: UploadedFile | undefined;
      if (req.isMultipart()) {
        uploaded = (await readMultipart(req)).files[0];
      } else if (Buffer.isBuffer(req.body)) {
        uploaded = { field: 'body', filename: file?.filename ?? 'file', mimeType: 'application/octet-stream', size: req.body.length, sha256: createHash('sha256').update(req.body).digest('hex') };
      }
      if (!file) return reply.status(404).type('text/plain').send('Not Found');
      if (!uploaded) return reply.status(400).type('text/plain').send('No file');
      file.uploaded = uploaded;
      return reply.type('text/plain').send(`OK - ${uploaded.size}`);
    });

    app.route({
      method: ['GET', 'POST'],
      url: '/api/:method',
      handler: async (req: FastifyRequest<{ Params: { method: string } }>) => {
        const a = argsOf(req);
        const method = req.params.method;
        const bearer = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '')?.[1] ?? (typeof a.token === 'string' ? a.token : undefined);
        if (!bearer) return { ok: false, error: 'not_authed' };
        const grant = tokens.get(bearer);
        if (!grant) return { ok: false, error: 'invalid_auth' };
        if (grant.revoked) return { ok: false, error: 'token_revoked' };
        const needed = SCOPE_OF[method];
        if (needed && !grant.scopes.has(needed)) return { ok: false, error: 'missing_scope', needed, provided: [...grant.scopes].join(',') };
        const ws = workspaces.get(grant.teamId)!;
        const str = (k: string) => (typeof a[k] === 'string' ? a[k] : typeof a[k] === 'number' ? String(a[k]) : undefined);
        const channelOf = (id: string | undefined) => {
          const c = id ? channels.get(id) : undefined;
          return c && c.teamId === ws.id && (!c.isPrivate || c.botMember) ? c : undefined;
        };
        /** The channel a message can be posted to, or the error Slack gives. */
        const writable = (id: string | undefined, threadTs: string | undefined): SlackChannelRecord | { ok: false; error: string } => {
          const c = channelOf(id);
          if (!c) return { ok: false, error: 'channel_not_found' };
          if (c.isArchived) return { ok: false, error: 'is_archived' };
          if (!c.botMember) return { ok: false, error: 'not_in_channel' };
          if (threadTs && !messages.some((m) => m.channel === c.id && m.ts === threadTs && !m.threadTs)) return { ok: false, error: 'thread_not_found' };
          return c;
        };

        switch (method) {
          case 'auth.test':
            return { ok: true, url: `https://${ws.domain}.slack.com/`, team: ws.name, team_id: ws.id, user_id: ws.botUserId, bot_id: ws.botId };
          case 'team.info':
            return {
              ok: true,
              team: {
                id: ws.id,
                name: ws.name,
                domain: ws.domain,
                email_domain: '',
                icon: ws.icon ? { image_44: `${ws.icon}_44.png`, image_68: `${ws.icon}_68.png`, image_88: `${ws.icon}_88.png`, image_132: `${ws.icon}_132.png` } : { image_132: 'https://a.slack-edge.com/default_132.png', image_default: true },
              },
            };
          case 'conversations.list': {
            const types = (str('types') ?? 'public_channel').split(',');
            if (types.includes('private_channel') && !grant.scopes.has('groups:read')) return { ok: false, error: 'missing_scope', needed: 'groups:read' };
            const limit = Math.min(1000, Number(str('limit') ?? 100));
            const offset = str('cursor') ? Number(Buffer.from(str('cursor')!, 'base64').toString().replace('offset:', '')) : 0;
            const all = [...channels.values()].filter(
              (c) => c.teamId === ws.id && (c.isPrivate ? types.includes('private_channel') && c.botMember : types.includes('public_channel')) && !(str('exclude_archived') === 'true' && c.isArchived),
            );
            const page = all.slice(offset, offset + limit);
            const next = offset + limit < all.length ? Buffer.from(`offset:${offset + limit}`).toString('base64') : '';
            return { ok: true, channels: page.map(channelJson), response_metadata: { next_cursor: next } };
          }
          case 'conversations.join': {
            const c = channelOf(str('channel'));
            if (!c) return { ok: false, error: 'channel_not_found' };
            if (c.isArchived) return { ok: false, error: 'is_archived' };
            if (c.isPrivate) return { ok: false, error: 'method_not_supported_for_channel_type' };
            const already = c.botMember;
            c.botMember = true;
            return { ok: true, channel: channelJson(c), ...(already ? { warning: 'already_in_channel', response_metadata: { warnings: ['already_in_channel'] } } : {}) };
          }
          case 'conversations.history': {
            const c = channelOf(str('channel'));
            if (!c) return { ok: false, error: 'channel_not_found' };
            if (!c.botMember) return { ok: false, error: 'not_in_channel' };
            const oldest = Number(str('oldest') ?? 0);
            const limit = Math.min(999, Number(str('limit') ?? 100));
            const top = messages.filter((m) => m.channel === c.id && !m.threadTs && Number(m.ts) > oldest).reverse();
            return { ok: true, messages: top.slice(0, limit).map((m) => messageJson(m, ws.id)), has_more: top.length > limit };
          }
          case 'conversations.replies': {
            const c = channelOf(str('channel'));
            if (!c) return { ok: false, error: 'channel_not_found' };
            // The history scope depends on the kind of channel the thread is in.
            const scope = c.isPrivate ? 'groups:history' : 'channels:history';
            if (!grant.scopes.has(scope)) return { ok: false, error: 'missing_scope', needed: scope, provided: [...grant.scopes].join(',') };
            if (!c.botMember) return { ok: false, error: 'not_in_channel' };
            const ts = str('ts');
            if (!ts) return { ok: false, error: 'invalid_arguments' };
            const asked = messages.find((m) => m.channel === c.id && m.ts === ts);
            if (!asked) return { ok: false, error: 'thread_not_found' };
            // `ts` may be the parent or any reply: the answer is the whole thread.
            const root = asked.threadTs ? messages.find((m) => m.channel === c.id && m.ts === asked.threadTs)! : asked;
            const limit = str('limit') === undefined ? 1000 : Number(str('limit'));
            if (!Number.isInteger(limit) || limit < 1) return { ok: false, error: 'invalid_arguments' };
            const isTs = (v: string | undefined) => v === undefined || /^\d+(\.\d+)?$/.test(v);
            if (!isTs(str('oldest'))) return { ok: false, error: 'invalid_ts_oldest' };
            if (!isTs(str('latest'))) return { ok: false, error: 'invalid_ts_latest' };
            const oldest = Number(str('oldest') ?? 0);
            const latest = str('latest') === undefined ? Infinity : Number(str('latest'));
            const inclusive = str('inclusive') === 'true' || str('inclusive') === '1';
            const inRange = (t: number) => (inclusive ? t >= oldest && t <= latest : t > oldest && t < latest);
            const all = messages.filter((m) => m.channel === c.id && m.threadTs === root.ts);
            const replies = all.filter((m) => inRange(Number(m.ts)));
            // The cursor names the first reply of the next page; the parent leads the first page only.
            let start = 0;
            const cursor = str('cursor');
            if (cursor) {
              const next = /^next_ts:(\d+\.\d+)$/.exec(Buffer.from(cursor, 'base64').toString());
              start = next ? replies.findIndex((m) => m.ts === next[1]) : -1;
              if (start === -1) return { ok: false, error: 'invalid_cursor' };
            }
            const first = !cursor;
            // The parent counts towards the first page's limit; every page holds at least one reply.
            const page = replies.slice(start, start + Math.max(1, Math.min(1000, limit) - (first ? 1 : 0)));
            const after = replies[start + page.length];
            const parentJson = { ...messageJson(root, ws.id), thread_ts: root.ts, reply_count: all.length, reply_users_count: new Set(all.map((m) => m.user)).size, ...(all.length ? { latest_reply: all.at(-1)!.ts } : {}) };
            return {
              ok: true,
              messages: [...(first ? [parentJson] : []), ...page.map((m) => ({ ...messageJson(m, ws.id), parent_user_id: root.user }))],
              has_more: after !== undefined,
              response_metadata: { next_cursor: after ? Buffer.from(`next_ts:${after.ts}`).toString('base64') : '' },
            };
          }
          case 'chat.postMessage': {
            const text = str('text') ?? '';
            const threadTs = str('thread_ts');
            const c = writable(str('channel'), threadTs);
            if ('ok' in c) return c;
            if (text.trim() === '' && !a.blocks && !a.attachments) return { ok: false, error: 'no_text' };
            if (text.length > 40_000) return { ok: false, error: 'msg_too_long' };
            const m = postMessage(c, { text, threadTs, user: ws.botUserId, botId: ws.botId });
            return { ok: true, channel: c.id, ts: m.ts, message: messageJson(m, ws.id) };
          }
          case 'chat.getPermalink': {
            const c = channelOf(str('channel'));
            if (!c) return { ok: false, error: 'channel_not_found' };
            const m = messages.find((x) => x.channel === c.id && x.ts === str('message_ts'));
            if (!m) return { ok: false, error: 'message_not_found' };
            const base = `https://${ws.domain}.slack.com/archives/${c.id}/p${m.ts.replace('.', '')}`;
            return { ok: true, channel: c.id, permalink: m.threadTs ? `${base}?thread_ts=${m.threadTs}&cid=${c.id}` : base };
          }
          case 'files.getUploadURLExternal': {
            const filename = str('filename');
            const length = Number(str('length'));
            if (!filename || !Number.isInteger(length) || length <= 0) return { ok: false, error: 'invalid_arguments' };
            const f: FileRecord = { id: nextId('F'), teamId: ws.id, filename, length, key: randomBytes(16).toString('hex'), shares: new Map(), ...(str('alt_txt') ? { altTxt: str('alt_txt') } : {}) };
            files.set(f.id, f);
            return { ok: true, upload_url: `https://files.slack.com/upload/v1/${f.key}`, file_id: f.id };
          }
          case 'files.completeUploadExternal': {
            let list: { id?: string; title?: string }[];
            try {
              list = (typeof a.files === 'string' ? JSON.parse(a.files) : a.files) as { id?: string; title?: string }[];
            } catch {
              return { ok: false, error: 'invalid_arguments' };
            }
            if (!Array.isArray(list) || list.length === 0 || list.length > 10) return { ok: false, error: 'invalid_arguments' };
            const records = list.map((x) => files.get(x.id ?? ''));
            if (records.some((f) => !f || f.teamId !== ws.id || !f.uploaded)) return { ok: false, error: 'file_not_found' };
            const ready = records as FileRecord[];
            const channelId = str('channel_id');
            if (channelId) {
              const threadTs = str('thread_ts');
              const c = writable(channelId, threadTs);
              if ('ok' in c) return c;
              const m = postMessage(c, { text: str('initial_comment') ?? '', threadTs, user: ws.botUserId, botId: ws.botId, files: ready.map((f) => f.uploaded!) });
              for (const f of ready) f.shares.set(c.id, { ts: m.ts, ...(threadTs ? { threadTs } : {}) });
            }
            return { ok: true, files: ready.map((f) => (state.sharesDelayed ? { ...fileJson(f), shares: {} } : fileJson(f))) };
          }
          case 'files.info': {
            const f = files.get(str('file') ?? '');
            if (!f || f.teamId !== ws.id) return { ok: false, error: 'file_not_found' };
            return { ok: true, file: fileJson(f) };
          }
          default:
            return { ok: false, error: 'unknown_method' };
        }
      },
    });
  });

  let wsSeq = 0;
  const out = Object.assign(sim, {
    clientId,
    clientSecret,
    workspaces,
    channels,
    messages,
    addWorkspace(ws: { id: string; name: string; domain: string; icon?: string | null }, list: (Pick<SlackChannelRecord, 'id' | 'name'> & Partial<Omit<SlackChannelRecord, 'id' | 'name' | 'teamId'>>)[]) {
      wsSeq++;
      const record: SlackWorkspaceRecord = { ...ws, icon: ws.icon ?? null, botUserId: `U0BOT${wsSeq}`, botId: `B0BOT${wsSeq}` };
      workspaces.set(ws.id, record);
      for (const c of list) {
        channels.set(c.id, { isGeneral: false, isPrivate: false, isArchived: false, botMember: false, ...c, teamId: ws.id });
      }
      return record;
    },
    addMessage(channelId: string, text: string, user = 'U0SOMEONE') {
      const c = channels.get(channelId);
      if (!c) throw new Error(`no channel ${channelId}`);
      return postMessage(c, { text, user });
    },
    addReply(channelId: string, threadTs: string, text: string, user = 'U0SOMEONE') {
      const c = channels.get(channelId);
      if (!c) throw new Error(`no channel ${channelId}`);
      if (!messages.some((m) => m.channel === c.id && m.ts === threadTs && !m.threadTs)) throw new Error(`no thread ${threadTs} in ${channelId}`);
      const bot = [...workspaces.values()].find((w) => w.botUserId === user);
      return postMessage(c, { text, threadTs, user, ...(bot ? { botId: bot.botId } : {}) });
    },
    revokeTokens() {
      for (const t of tokens.values()) t.revoked = true;
    },
    injectKind(kind: InjectedKind) {
      const path = MESSAGE_PATH;
      switch (kind) {
        case 'auth_expired':
          return sim.inject({ path, status: 200, body: { ok: false, error: 'invalid_auth' } });
        case 'revoked':
          return sim.inject({ path, status: 200, body: { ok: false, error: 'token_revoked' } });
        case 'rate_limited':
          return sim.inject({ path, status: 429, headers: { 'retry-after': '30' }, body: { ok: false, error: 'ratelimited' } });
        case 'server_error':
          return sim.inject({ path, status: 503, headers: { 'content-type': 'text/html' }, body: '<html><body>Service Unavailable</body></html>' });
        case 'rejected':
          return sim.inject({ path, status: 200, body: { ok: false, error: 'is_archived' } });
        case 'error_in_200':
          return sim.inject({ path, status: 200, body: { ok: false, error: 'msg_too_long' } });
      }
    },
  });
  return Object.defineProperty(out, 'sharesDelayed', {
    get: () => state.sharesDelayed,
    set: (v: boolean) => void (state.sharesDelayed = v),
    enumerable: true,
  }) as SlackSimulator;
}
