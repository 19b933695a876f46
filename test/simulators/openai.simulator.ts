import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { startSimulator, type Injection, type Simulator, type SimulatorRequest } from '../../src/platforms/simulator.js';

/**
 * A small imitation of the OpenAI chat-completions API (and so of Ollama's, LM Studio's and every
 * other OpenAI-compatible server's `/v1`), for the writing-help tests:
 * - `GET /v1/models` → `{object: 'list', data: [{id, object: 'model', created, owned_by}]}`;
 * - `POST /v1/chat/completions` → a `chat.completion` (`choices[0].message.content`,
 *   `finish_reason: 'stop'`, `usage`), or with `stream: true` Server-Sent Events of
 *   `chat.completion.chunk`s (`delta.role`, then `delta.content` pieces, then an empty delta with
 *   `finish_reason`), ended by `data: [DONE]`;
 * - a Bearer key check (401 `invalid_api_key` in OpenAI's error shape) when `apiKey` is set;
 *   an unknown model is a 404 `model_not_found`;
 * - answers scripted by `reply(messages)`; `setLatency` (before any answer) and `inject` (any
 *   status and body, e.g. a 500 or a 429 with `Retry-After`) from the shared harness.
 */

export interface ChatMessageIn {
  role: string;
  content: string | { type: string; text?: string; image_url?: { url: string } }[];
}

export interface OpenAiSimulator {
  readonly origin: string;
  /** the base URL to configure (`<origin>/v1`) */
  readonly baseUrl: string;
  readonly log: SimulatorRequest[];
  /** chat-completion requests only */
  completions(): { model: string; stream: boolean; messages: ChatMessageIn[] }[];
  /** what the model answers to a conversation (default: a short fixed text) */
  setReply(fn: (messages: ChatMessageIn[]) => string): void;
  setLatency(ms: number): void;
  /** each streamed piece waits this long (a model writing slowly) */
  setChunkDelay(ms: number): void;
  /** streamed answers whose connection the client closed before the end */
  closedEarly(): number;
  inject(injection: Injection): void;
  close(): Promise<void>;
}

const OPENAI_ERROR = (message: string, type: string, code: string | null, param: string | null = null) => ({ error: { message, type, param, code } });

/** The text of a message (the text parts of a multi-part one). */
export function textOf(m: ChatMessageIn): string {
  return typeof m.content === 'string' ? m.content : m.content.map((p) => p.text ?? '').join('\n');
}

export async function startOpenAiSimulator(opts: { apiKey?: string; models?: string[] } = {}): Promise<OpenAiSimulator> {
  const models = opts.models ?? ['gpt-4o-mini', 'llama3.1:8b'];
  let reply: (messages: ChatMessageIn[]) => string = () => 'A suggestion from the simulated model.';
  let chunkDelayMs = 0;
  let closedEarly = 0;

  const sim: Simulator = await startSimulator((app) => {
    app.addHook('preHandler', async (req, res) => {
      if (!opts.apiKey) return;
      const auth = req.headers.authorization;
      if (auth !== `Bearer ${opts.apiKey}`) {
        return res
          .status(401)
          .send(OPENAI_ERROR(`Incorrect API key provided: ${auth ? `${auth.replace(/^Bearer /, '').slice(0, 3)}***` : 'none'}. You can find your API key at https://platform.openai.com/account/api-keys.`, 'invalid_request_error', 'invalid_api_key'));
      }
    });

    app.get('/v1/models', async () => ({
      object: 'list',
      data: models.map((id) => ({ id, object: 'model', created: 1_700_000_000, owned_by: 'simulator' })),
    }));

    app.post('/v1/chat/completions', async (req, res) => {
      const body = req.body as { model?: string; messages?: ChatMessageIn[]; stream?: boolean };
      if (!body?.model || !Array.isArray(body.messages)) {
        return res.status(400).send(OPENAI_ERROR("'model' and 'messages' are required", 'invalid_request_error', null, body?.model ? 'messages' : 'model'));
      }
      if (!models.includes(body.model)) {
        return res.status(404).send(OPENAI_ERROR(`The model \`${body.model}\` does not exist or you do not have access to it.`, 'invalid_request_error', 'model_not_found'));
      }
      const text = reply(body.messages);
      const id = `chatcmpl-${randomBytes(12).toString('hex')}`;
      const created = Math.floor(Date.now() / 1000);
      if (!body.stream) {
        return {
          id,
          object: 'chat.completion',
          created,
          model: body.model,
          choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 10, completion_tokens: text.length, total_tokens: 10 + text.length },
        };
      }
      const chunk = (delta: Record<string, string>, finish: string | null) =>
        `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: body.model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
      // Pieces of a few characters, as a model's tokens arrive.
      const pieces = text.match(/[\s\S]{1,8}/g) ?? [];
      async function* events() {
        yield chunk({ role: 'assistant', content: '' }, null);
        for (const p of pieces) {
          if (chunkDelayMs > 0) await new Promise((r) => setTimeout(r, chunkDelayMs));
          yield chunk({ content: p }, null);
        }
        yield chunk({}, 'stop');
        yield 'data: [DONE]\n\n';
      }
      res.raw.once('close', () => {
        if (!res.raw.writableFinished) closedEarly++;
      });
      return res.header('content-type', 'text/event-stream').header('cache-control', 'no-cache').send(Readable.from(events()));
    });
  });

  return {
    origin: sim.origin,
    baseUrl: `${sim.origin}/v1`,
    log: sim.log,
    completions: () =>
      sim.log
        .filter((r) => r.method === 'POST' && r.path === '/v1/chat/completions')
        .map((r) => {
          const b = r.body as { model: string; stream?: boolean; messages: ChatMessageIn[] };
          return { model: b.model, stream: b.stream === true, messages: b.messages };
        }),
    setReply: (fn) => {
      reply = fn;
    },
    setLatency: (ms) => sim.setLatency(ms),
    setChunkDelay: (ms) => {
      chunkDelayMs = ms;
    },
    closedEarly: () => closedEarly,
    inject: (i) => sim.inject(i),
    close: () => sim.close(),
  };
}
