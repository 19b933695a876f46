import { randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { readMultipart, startSimulator, type InjectedKind, type Simulator, type UploadedFile } from '../simulator.js';

/**
 * A simulator of the parts of Discord the adapter uses, on the real paths of `https://discord.com`:
 * the OAuth bot install (`/oauth2/authorize`, approved at once, and `/api/oauth2/token`, whose
 * answer names the guild), and the bot API under `/api/v10` (guilds, channels, messages with
 * attachments, threads started from a message). Errors have Discord's shapes: `{ code, message,
 * errors? }` with the real HTTP status, 429 with `retry_after` and the rate-limit headers.
 */
export interface DiscordGuildRecord {
  id: string;
  name: string;
  icon: string | null;
  systemChannelId: string | null;
  /** the bot is a member (after the OAuth install) */
  botInstalled: boolean;
}

export interface DiscordChannelRecord {
  id: string;
  guildId: string;
  name: string;
  /** 0 text, 2 voice, 4 category, 5 announcement, 11 public thread */
  type: number;
  position: number;
  parentId: string | null;
  /** threads: the message they were started from (a thread has that message's id) */
  starterMessageId?: string;
  /** the bot lacks Send Messages here (403 Missing Permissions) */
  denySend?: boolean;
}

export interface DiscordMessageRecord {
  id: string;
  channelId: string;
  guildId: string;
  authorId: string;
  content: string;
  timestamp: string;
  /** messages in a thread: the thread's starter message */
  replyTo?: string;
  attachments: (UploadedFile & { description?: string })[];
}

export interface DiscordSimulatorOptions {
  clientId?: string;
  clientSecret?: string;
  botToken?: string;
  botUserId?: string;
}

export interface DiscordSimulator extends Simulator {
  readonly clientId: string;
  readonly clientSecret: string;
  readonly botToken: string;
  readonly botUserId: string;
  guilds: Map<string, DiscordGuildRecord>;
  channels: Map<string, DiscordChannelRecord>;
  messages: DiscordMessageRecord[];
  /** a guild with its channels; the first added is the one the authorisation page picks */
  addGuild(guild: { id: string; name: string; icon?: string | null; systemChannelId?: string | null; botInstalled?: boolean }, channels: Omit<DiscordChannelRecord, 'guildId' | 'position' | 'parentId'>[]): void;
  /** the user's messages in a channel or thread (not the bot's): in a thread, someone else's reply */
  addMessage(channelId: string, content: string, authorId?: string): DiscordMessageRecord;
  /** the app's bot token is reset and user tokens revoked: every bot call now answers 401 */
  revokeTokens(): void;
  injectKind(kind: InjectedKind): void;
}

const DISCORD_EPOCH = 1420070400000n;
const MESSAGE_PATH = /\/api\/v10\/channels\/\d+\/messages/;

const fail = (reply: FastifyReply, status: number, code: number, message: string, errors?: unknown) =>
  reply.status(status).send({ message, code, ...(errors ? { errors } : {}) });

const formError = (field: string, code: string, message: string) => ({ [field]: { _errors: [{ code, message }] } });

export async function startDiscordSimulator(opts: DiscordSimulatorOptions = {}): Promise<DiscordSimulator> {
  const clientId = opts.clientId ?? '1100000000000000001';
  const clientSecret = opts.clientSecret ?? 'discord-client-secret';
  let botToken = opts.botToken ?? 'MTEwMDAwMDAwMDAwMDAwMDAwMQ.GabcDE.bot-token-secret';
  const botUserId = opts.botUserId ?? clientId;
  const guilds = new Map<string, DiscordGuildRecord>();
  const channels = new Map<string, DiscordChannelRecord>();
  const messages: DiscordMessageRecord[] = [];
  const codes = new Map<string, { redirectUri: string; guildId: string; used: boolean }>();
  const userTokens = new Set<string>();
  let seq = 0n;

  const snowflake = () => String(((BigInt(Date.now()) - DISCORD_EPOCH) << 22n) + seq++);

  const channelJson = (c: DiscordChannelRecord) => ({
    id: c.id,
    type: c.type,
    guild_id: c.guildId,
    name: c.name,
    position: c.position,
    parent_id: c.parentId,
    ...(c.type === 11 ? { owner_id: botUserId, thread_metadata: { archived: false, auto_archive_duration: 1440, locked: false } } : {}),
  });
  const guildJson = (g: DiscordGuildRecord) => ({ id: g.id, name: g.name, icon: g.icon, system_channel_id: g.systemChannelId, owner_id: '1', features: [] });
  const messageJson = (m: DiscordMessageRecord) => ({
    id: m.id,
    type: 0,
    channel_id: m.channelId,
    guild_id: m.guildId,
    content: m.content,
    timestamp: m.timestamp,
    author: m.authorId === botUserId ? { id: botUserId, username: 'Tidings', bot: true } : { id: m.authorId, username: 'someone' },
    attachments: m.attachments.map((a, i) => ({ id: `${m.id}${i}`, filename: a.filename, size: a.size, content_type: a.mimeType, url: `https://cdn.discordapp.com/attachments/${m.channelId}/${m.id}/${a.filename}` })),
    ...(channels.has(m.id) ? { thread: channelJson(channels.get(m.id)!) } : {}),
  });

  function newMessage(channel: DiscordChannelRecord, fields: Pick<DiscordMessageRecord, 'content' | 'attachments'> & { authorId?: string }): DiscordMessageRecord {
    const m: DiscordMessageRecord = {
      id: snowflake(),
      channelId: channel.id,
      guildId: channel.guildId,
      authorId: fields.authorId ?? botUserId,
      content: fields.content,
      timestamp: new Date().toISOString(),
      attachments: fields.attachments,
      ...(channel.starterMessageId ? { replyTo: channel.starterMessageId } : {}),
    };
    messages.push(m);
    return m;
  }

  /** The bot's view of a channel: 401, 404 or 403 as Discord answers. */
  function botChannel(req: FastifyRequest, reply: FastifyReply, id: string): DiscordChannelRecord | undefined {
    const channel = channels.get(id);
    if (!channel) {
      void fail(reply, 404, 10003, 'Unknown Channel');
      return undefined;
    }
    if (!guilds.get(channel.guildId)?.botInstalled) {
      void fail(reply, 403, 50001, 'Missing Access');
      return undefined;
    }
    return channel;
  }

  const sim = await startSimulator((app) => {
    app.get('/oauth2/authorize', async (req: FastifyRequest<{ Querystring: Record<string, string | undefined> }>, reply) => {
      const q = req.query;
      if (q.client_id !== clientId) return reply.status(400).send({ client_id: ['Unknown application'] });
      if (q.response_type !== 'code' || !q.redirect_uri) return reply.status(400).send({ message: 'Invalid OAuth2 request' });
      const scopes = (q.scope ?? '').split(' ');
      if (!scopes.includes('bot')) return reply.status(400).send({ message: 'This flow needs the bot scope' });
      const guild = q.guild_id ? guilds.get(q.guild_id) : guilds.values().next().value;
      if (!guild) return reply.status(400).send({ message: 'No server to add the bot to' });
      guild.botInstalled = true;
      const code = randomBytes(15).toString('base64url');
      codes.set(code, { redirectUri: q.redirect_uri, guildId: guild.id, used: false });
      const back = new URL(q.redirect_uri);
      back.searchParams.set('code', code);
      if (q.state) back.searchParams.set('state', q.state);
      back.searchParams.set('guild_id', guild.id);
      back.searchParams.set('permissions', q.permissions ?? '0');
      return reply.redirect(back.toString(), 302);
    });

    app.post('/api/oauth2/token', async (req, reply) => {
      const body = (req.body ?? {}) as Record<string, string | undefined>;
      let id = body.client_id;
      let secret = body.client_secret;
      const basic = /^Basic (.+)$/i.exec(req.headers.authorization ?? '');
      if (basic) [id, secret] = Buffer.from(basic[1]!, 'base64').toString().split(':').map(decodeURIComponent);
      if (id !== clientId || secret !== clientSecret) return reply.status(401).send({ error: 'invalid_client' });
      if (body.grant_type !== 'authorization_code') return reply.status(400).send({ error: 'unsupported_grant_type' });
      const grant = codes.get(body.code ?? '');
      if (!grant || grant.used) return reply.status(400).send({ error: 'invalid_grant', error_description: 'Invalid "code" in request.' });
      grant.used = true;
      if (grant.redirectUri !== body.redirect_uri) return reply.status(400).send({ error: 'invalid_grant', error_description: 'Invalid "redirect_uri" in request.' });
      const guild = guilds.get(grant.guildId)!;
      const access = randomBytes(20).toString('base64url');
      userTokens.add(access);
      return {
        token_type: 'Bearer',
        access_token: access,
        expires_in: 604800,
        refresh_token: randomBytes(20).toString('base64url'),
        scope: 'bot identify guilds',
        guild: { ...guildJson(guild), roles: [], emojis: [] },
      };
    });

    app.register(
      async (api) => {
        api.addHook('preHandler', async (req, reply) => {
          if (req.headers.authorization === `Bot ${botToken}`) return;
          if (req.isMultipart()) for await (const _ of req.parts()) void _;
          return fail(reply, 401, 0, '401: Unauthorized');
        });

        api.get('/users/@me', async () => ({ id: botUserId, username: 'Tidings', bot: true, discriminator: '0' }));

        api.get('/guilds/:id', async (req: FastifyRequest<{ Params: { id: string } }>, reply) => {
          const guild = guilds.get(req.params.id);
          if (!guild) return fail(reply, 404, 10004, 'Unknown Guild');
          if (!guild.botInstalled) return fail(reply, 403, 50001, 'Missing Access');
          return guildJson(guild);
        });

        api.get('/guilds/:id/channels', async (req: FastifyRequest<{ Params: { id: string } }>, reply) => {
          const guild = guilds.get(req.params.id);
          if (!guild) return fail(reply, 404, 10004, 'Unknown Guild');
          if (!guild.botInstalled) return fail(reply, 403, 50001, 'Missing Access');
          // Like Discord, threads are not listed here.
          return [...channels.values()].filter((c) => c.guildId === guild.id && c.type !== 11).map(channelJson);
        });

        api.get('/channels/:id', async (req: FastifyRequest<{ Params: { id: string } }>, reply) => {
          const channel = botChannel(req, reply, req.params.id);
          return channel ? channelJson(channel) : reply;
        });

        // Newest first; `before` pages back from a message id (only that paging is simulated).
        api.get('/channels/:id/messages', async (req: FastifyRequest<{ Params: { id: string }; Querystring: { limit?: string; before?: string; after?: string; around?: string } }>, reply) => {
          const channel = botChannel(req, reply, req.params.id);
          if (!channel) return reply;
          const q = req.query;
          const limit = Number(q.limit ?? 50);
          if (!Number.isInteger(limit) || limit < 1 || limit > 100) return fail(reply, 400, 50035, 'Invalid Form Body', formError('limit', 'NUMBER_TYPE_MAX', 'int value should be less than or equal to 100.'));
          if (q.before !== undefined && !/^\d{1,20}$/.test(q.before)) return fail(reply, 400, 50035, 'Invalid Form Body', formError('before', 'NUMBER_TYPE_COERCE', `Value "${q.before}" is not snowflake.`));
          // (the simulator's own refusal: these pagings are not simulated, and must not be answered as if they were)
          if (q.after !== undefined || q.around !== undefined) return fail(reply, 400, 50035, 'Invalid Form Body', formError(q.after !== undefined ? 'after' : 'around', 'NOT_SIMULATED', 'Only before is simulated.'));
          const before = q.before === undefined ? undefined : BigInt(q.before);
          return messages
            .filter((m) => m.channelId === channel.id && (before === undefined || BigInt(m.id) < before))
            .reverse()
            .slice(0, limit)
            .map(messageJson);
        });

        api.get('/channels/:id/messages/:mid', async (req: FastifyRequest<{ Params: { id: string; mid: string } }>, reply) => {
          const channel = botChannel(req, reply, req.params.id);
          if (!channel) return reply;
          const m = messages.find((x) => x.channelId === channel.id && x.id === req.params.mid);
          return m ? messageJson(m) : fail(reply, 404, 10008, 'Unknown Message');
        });

        api.post('/channels/:id/messages', async (req: FastifyRequest<{ Params: { id: string } }>, reply) => {
          let payload: { content?: unknown; attachments?: { id: number | string; filename?: string; description?: string }[] };
          let files: UploadedFile[] = [];
          if (req.isMultipart()) {
            const parsed = await readMultipart(req);
            files = parsed.files;
            try {
              payload = JSON.parse(parsed.fields.payload_json ?? '{}') as typeof payload;
            } catch {
              return fail(reply, 400, 50109, 'The request body contains invalid JSON.');
            }
          } else {
            payload = req.body ?? {};
          }
          const channel = botChannel(req, reply, req.params.id);
          if (!channel) return reply;
          if (channel.type !== 0 && channel.type !== 5 && channel.type !== 11) return fail(reply, 400, 50008, 'Cannot send messages in a non-text channel');
          if (channel.denySend) return fail(reply, 403, 50013, 'Missing Permissions');
          const content = typeof payload.content === 'string' ? payload.content : '';
          if (content.length > 2000) return fail(reply, 400, 50035, 'Invalid Form Body', formError('content', 'BASE_TYPE_MAX_LENGTH', 'Must be 2000 or fewer in length.'));
          if (files.length > 10) return fail(reply, 400, 50035, 'Invalid Form Body', formError('files', 'BASE_TYPE_MAX_LENGTH', 'Must be 10 or fewer in length.'));
          if (content.trim() === '' && files.length === 0) return fail(reply, 400, 50006, 'Cannot send an empty message');
          const attachments = files.map((f) => {
            const index = /^files\[(\d+)\]$/.exec(f.field)?.[1];
            const meta = payload.attachments?.find((a) => String(a.id) === index);
            return { ...f, ...(meta?.filename ? { filename: meta.filename } : {}), ...(meta?.description ? { description: meta.description } : {}) };
          });
          return messageJson(newMessage(channel, { content, attachments }));
        });

        api.post('/channels/:id/messages/:mid/threads', async (req: FastifyRequest<{ Params: { id: string; mid: string } }>, reply) => {
          const channel = botChannel(req, reply, req.params.id);
          if (!channel) return reply;
          const starter = messages.find((m) => m.channelId === channel.id && m.id === req.params.mid);
          if (!starter) return fail(reply, 404, 10008, 'Unknown Message');
          const body = (req.body ?? {}) as { name?: unknown };
          const name = typeof body.name === 'string' ? body.name : '';
          if (name.length < 1 || name.length > 100) return fail(reply, 400, 50035, 'Invalid Form Body', formError('name', 'BASE_TYPE_BAD_LENGTH', 'Must be between 1 and 100 in length.'));
          if (channels.has(starter.id)) return fail(reply, 400, 160004, 'A thread has already been created for this message');
          const thread: DiscordChannelRecord = { id: starter.id, guildId: channel.guildId, name, type: 11, position: 0, parentId: channel.id, starterMessageId: starter.id };
          channels.set(thread.id, thread);
          return reply.status(201).send(channelJson(thread));
        });
      },
      { prefix: '/api/v10' },
    );
  });

  const out = Object.assign(sim, {
    clientId,
    clientSecret,
    botUserId,
    guilds,
    channels,
    messages,
    addGuild(g: { id: string; name: string; icon?: string | null; systemChannelId?: string | null; botInstalled?: boolean }, list: Omit<DiscordChannelRecord, 'guildId' | 'position' | 'parentId'>[]) {
      guilds.set(g.id, { id: g.id, name: g.name, icon: g.icon ?? null, systemChannelId: g.systemChannelId ?? null, botInstalled: g.botInstalled ?? false });
      list.forEach((c, position) => channels.set(c.id, { ...c, guildId: g.id, position, parentId: null }));
    },
    addMessage(channelId: string, content: string, authorId = '42') {
      const channel = channels.get(channelId);
      if (!channel) throw new Error(`no channel ${channelId}`);
      return newMessage(channel, { content, attachments: [], authorId });
    },
    revokeTokens() {
      botToken = `reset-${randomBytes(8).toString('hex')}`;
      userTokens.clear();
    },
    injectKind(kind: InjectedKind) {
      const path = MESSAGE_PATH;
      switch (kind) {
        case 'auth_expired':
        case 'revoked':
          return sim.inject({ path, status: 401, body: { message: '401: Unauthorized', code: 0 } });
        case 'rate_limited':
          return sim.inject({
            path,
            status: 429,
            headers: {
              'retry-after': '3',
              'x-ratelimit-limit': '5',
              'x-ratelimit-remaining': '0',
              'x-ratelimit-reset': String(Date.now() / 1000 + 2.5),
              'x-ratelimit-reset-after': '2.5',
              'x-ratelimit-bucket': 'b6f1ef8b0e3dc4c4d3d7c4b1c0a7c5a2',
              'x-ratelimit-scope': 'user',
            },
            body: { message: 'You are being rate limited.', retry_after: 2.5, global: false },
          });
        case 'server_error':
          return sim.inject({ path, status: 502, headers: { 'content-type': 'text/html' }, body: '<html><head><title>502 Bad Gateway</title></head><body>cloudflare</body></html>' });
        case 'rejected':
        case 'error_in_200':
          return sim.inject({ path, status: 400, body: { message: 'Invalid Form Body', code: 50035, errors: formError('content', 'BASE_TYPE_MAX_LENGTH', 'Must be 2000 or fewer in length.') } });
      }
    },
  });
  // The token changes on revokeTokens(), so it is read live.
  return Object.defineProperty(out, 'botToken', { get: () => botToken, enumerable: true }) as DiscordSimulator;
}
