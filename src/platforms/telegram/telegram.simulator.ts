import type { FastifyReply, FastifyRequest } from 'fastify';
import { readMultipart, startSimulator, type InjectedKind, type Simulator, type UploadedFile } from '../simulator.js';

/**
 * A simulator of the Telegram Bot API (`https://api.telegram.org/bot<token>/<method>`): bots,
 * chats with their administrators, messages with replies and media, and Telegram's error shape
 * `{ ok: false, error_code, description, parameters }` (sometimes under HTTP 200).
 */
export interface TelegramMessageRecord {
  chatId: number;
  messageId: number;
  text?: string;
  caption?: string;
  replyTo?: number;
  media: UploadedFile[];
  groupId?: string;
}

export interface TelegramSimulator extends Simulator {
  addBot(token: string, bot: { id: number; username: string }): void;
  addChat(chat: { id: number; title: string; username?: string; type?: string; admins: number[] }): void;
  messages: TelegramMessageRecord[];
  injectKind(kind: InjectedKind): void;
}

const fail = (reply: FastifyReply, code: number, description: string, parameters?: Record<string, unknown>) =>
  reply.status(code).send({ ok: false, error_code: code, description, ...(parameters ? { parameters } : {}) });

export async function startTelegramSimulator(): Promise<TelegramSimulator> {
  const bots = new Map<string, { id: number; username: string }>();
  const chats = new Map<string, { id: number; title: string; username?: string; type: string; admins: Set<number> }>();
  const messages: TelegramMessageRecord[] = [];
  const nextId = new Map<number, number>();
  let groupSeq = 0;

  function findChat(ref: unknown) {
    const key = String(ref);
    if (chats.has(key)) return chats.get(key);
    for (const c of chats.values()) if (c.username && `@${c.username}` === key) return c;
    return undefined;
  }

  const sim = await startSimulator((app) => {
    app.post('/bot:token/:method', async (req: FastifyRequest<{ Params: { token: string; method: string } }>, reply) => {
      const bot = bots.get(req.params.token);
      if (!bot) return fail(reply, 401, 'Unauthorized');
      let body: Record<string, unknown>;
      let files: UploadedFile[] = [];
      if (req.isMultipart()) {
        const parsed = await readMultipart(req);
        body = { ...parsed.fields };
        files = parsed.files;
      } else {
        body = (req.body ?? {}) as Record<string, unknown>;
      }
      const method = req.params.method;
      if (method === 'getMe') return { ok: true, result: { id: bot.id, is_bot: true, first_name: bot.username, username: bot.username } };
      const chat = findChat(body.chat_id);
      if (!chat) return fail(reply, 400, 'Bad Request: chat not found');
      if (method === 'getChat') return { ok: true, result: { id: chat.id, type: chat.type, title: chat.title, ...(chat.username ? { username: chat.username } : {}) } };
      if (method === 'getChatMember') {
        return { ok: true, result: { status: chat.admins.has(Number(body.user_id)) ? 'administrator' : 'member', user: { id: Number(body.user_id) } } };
      }
      if (!chat.admins.has(bot.id)) return fail(reply, 403, 'Forbidden: bot is not a member of the channel chat');
      const replyParams = typeof body.reply_parameters === 'string' ? (JSON.parse(body.reply_parameters) as { message_id: number }) : (body.reply_parameters as { message_id: number } | undefined);
      const replyTo = replyParams?.message_id;
      if (replyTo !== undefined && !messages.some((m) => m.chatId === chat.id && m.messageId === replyTo)) {
        return fail(reply, 400, 'Bad Request: message to be replied not found');
      }
      const newMessage = (fields: Partial<TelegramMessageRecord>) => {
        const id = (nextId.get(chat.id) ?? 0) + 1;
        nextId.set(chat.id, id);
        const m: TelegramMessageRecord = { chatId: chat.id, messageId: id, media: [], replyTo, ...fields };
        messages.push(m);
        return { message_id: id, date: Math.floor(Date.now() / 1000), chat: { id: chat.id, type: chat.type, title: chat.title, ...(chat.username ? { username: chat.username } : {}) } };
      };
      switch (method) {
        case 'sendMessage': {
          const text = typeof body.text === 'string' ? body.text : '';
          if (text.length === 0) return fail(reply, 400, 'Bad Request: message text is empty');
          if (text.length > 4096) return fail(reply, 400, 'Bad Request: message is too long');
          return { ok: true, result: newMessage({ text }) };
        }
        case 'sendPhoto':
        case 'sendVideo': {
          const caption = body.caption as string | undefined;
          if (caption && caption.length > 1024) return fail(reply, 400, 'Bad Request: message caption is too long');
          if (files.length !== 1) return fail(reply, 400, 'Bad Request: there is no photo in the request');
          return { ok: true, result: newMessage({ caption, media: files }) };
        }
        case 'sendMediaGroup': {
          const media = JSON.parse(typeof body.media === 'string' ? body.media : '[]') as { media: string; caption?: string }[];
          if (media.length < 2 || media.length > 10) return fail(reply, 400, 'Bad Request: wrong number of media in the group');
          const groupId = String(++groupSeq);
          const result = media.map((m, i) => {
            const file = files.find((f) => `attach://${f.field}` === m.media);
            return newMessage({ caption: i === 0 ? m.caption : undefined, media: file ? [file] : [], groupId, replyTo: i === 0 ? replyTo : undefined });
          });
          return { ok: true, result };
        }
        default:
          return fail(reply, 404, 'Not Found: method not found');
      }
    });
  });

  return Object.assign(sim, {
    messages,
    addBot: (token: string, bot: { id: number; username: string }) => void bots.set(token, bot),
    addChat: (c: { id: number; title: string; username?: string; type?: string; admins: number[] }) =>
      void chats.set(String(c.id), { ...c, type: c.type ?? 'channel', admins: new Set(c.admins) }),
    injectKind(kind: InjectedKind) {
      const path = /\/send/;
      switch (kind) {
        case 'auth_expired':
        case 'revoked':
          return sim.inject({ path, status: 403, body: { ok: false, error_code: 403, description: 'Forbidden: bot was kicked from the channel chat' } });
        case 'rate_limited':
          return sim.inject({ path, status: 429, body: { ok: false, error_code: 429, description: 'Too Many Requests: retry after 35', parameters: { retry_after: 35 } } });
        case 'server_error':
          return sim.inject({ path, status: 502, body: { ok: false, error_code: 502, description: 'Bad Gateway' } });
        case 'rejected':
          return sim.inject({ path, status: 400, body: { ok: false, error_code: 400, description: "Bad Request: can't parse entities: unsupported start tag" } });
        case 'error_in_200':
          return sim.inject({ path, status: 200, body: { ok: false, error_code: 400, description: 'Bad Request: message is too long' } });
      }
    },
  });
}
