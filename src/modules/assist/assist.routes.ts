import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { abortOnDisconnect } from '../../http/abort-on-disconnect.js';
import { errorResponses } from '../../http/error-schema.js';
import { AppError } from '../../errors.js';
import type { ActionBodies, AssistAction, AssistService } from './assist.service.js';
import {
  AiSettingsSchema,
  AltTextBodySchema,
  DraftBodySchema,
  HashtagsBodySchema,
  PutAiSettingsBodySchema,
  RewriteBodySchema,
  SuggestionsSchema,
  ThreadBodySchema,
  TranslateBodySchema,
} from './assist.schemas.js';

const tags = ['Writing help'];

/** What every action route answers besides its suggestions. */
const ACTION_ERRORS = errorResponses('AI_NOT_CONFIGURED', 'AI_RATE_LIMITED', 'AI_UNAVAILABLE', 'AI_TIMEOUT');

const COMMON =
  'Suggestions only: nothing is saved or published. Each is counted in its platform\'s own way (`length`, `maxLength`); one over the limit is sent back to the model once to be shortened, and if still over it is answered with `fits: false` and a `note` (the composer does not let it be accepted as it is). ' +
  'With no model set: 404 `AI_NOT_CONFIGURED` and nothing is sent anywhere. More than AI_RATE_LIMIT calls to the model a minute per organisation (one per suggestion; a retry to shorten is free): 429 `AI_RATE_LIMITED` with `Retry-After`. The model endpoint refusing the key or failing: 502 `AI_UNAVAILABLE`; silent for AI_TIMEOUT_SECONDS: 504 `AI_TIMEOUT`.\n\n' +
  '**Streaming**: with `Accept: text/event-stream` the answer is Server-Sent Events: `event: delta` with data `{"index": <suggestion index>, "text": "<next piece>"}` as the model writes (a preview: a shortened retry is not streamed), then `event: done` with data `{"suggestions": [...]}` (the same as the JSON answer, after the length checks: what counts), or `event: error` with data `{"code", "message"}` when the model fails after the stream started. Refusals before the model answers (404, 400, 429, and a model failing before its first word) are the usual JSON errors. Closing the connection closes the model request.';

interface ActionRoute<A extends AssistAction> {
  action: A;
  summary: string;
  description: string;
  body: z.ZodType<ActionBodies[A]>;
}

function wantsStream(req: FastifyRequest): boolean {
  return (req.headers.accept ?? '').includes('text/event-stream');
}

function sse(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/**
 * Runs a prepared action as Server-Sent Events. The stream (and its 200) starts only with the
 * first event, so a model failing before its first word is still a JSON error.
 */
async function stream(req: FastifyRequest, reply: FastifyReply, prepared: Awaited<ReturnType<AssistService['prepare']>>) {
  const { signal, done } = abortOnDisconnect(reply);
  const events: string[] = [];
  let failure: Error | undefined;
  let ended = false;
  let wake: (() => void) | undefined;
  const push = (e: string) => {
    events.push(e);
    wake?.();
  };
  const waitForEvent = () =>
    events.length > 0 || ended
      ? Promise.resolve()
      : new Promise<void>((resolve) => {
          wake = resolve;
        });
  void prepared({ signal, onDelta: (index, text) => push(sse('delta', { index, text })) })
    .then(
      (result) => push(sse('done', result)),
      (err: unknown) => {
        failure = err instanceof Error ? err : new Error(String(err));
      },
    )
    .finally(() => {
      ended = true;
      done();
      wake?.();
    });
  await waitForEvent();
  if (events.length === 0 && failure !== undefined) throw failure;

  async function* body() {
    for (;;) {
      while (events.length > 0) yield events.shift()!;
      if (ended) break;
      await waitForEvent();
      wake = undefined;
    }
    if (failure !== undefined && !signal.aborted) {
      if (failure instanceof AppError) {
        yield sse('error', { code: failure.code, message: failure.message });
      } else {
        req.log.error({ err: failure }, 'writing help failed while streaming');
        yield sse('error', { code: 'INTERNAL', message: 'Something went wrong on our side while the suggestion was written' });
      }
    }
  }
  return reply
    .status(200)
    .header('content-type', 'text/event-stream; charset=utf-8')
    .header('cache-control', 'no-cache')
    .header('x-accel-buffering', 'no')
    .send(Readable.from(body()));
}

export function assistRoutes(service: AssistService): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/ai/settings',
      { schema: { tags, summary: "The organisation's writing-help model (never its key)", response: { 200: AiSettingsSchema } } },
      async (req) => service.getSettings(req.auth.organizationId),
    );

    app.put(
      '/ai/settings',
      {
        schema: {
          tags,
          summary: 'Set the writing-help model: any OpenAI-compatible endpoint (owners and admins)',
          description:
            'The endpoint is checked once with `GET {baseUrl}/models`: unreachable, refused or not an OpenAI-compatible API is a 400 naming `baseUrl`; a refused key one naming `apiKey`; a model it does not list one naming `model`. ' +
            'Addresses on this machine or a private network (Ollama `http://127.0.0.1:11434/v1`, LM Studio `http://127.0.0.1:1234/v1`) need ALLOW_PRIVATE_TARGETS=true. ' +
            'The key is stored sealed and never answered; omitted, the stored one is kept while the address stays the same.',
          body: PutAiSettingsBodySchema,
          response: { 200: AiSettingsSchema },
        },
      },
      async (req) => service.putSettings(req.auth.organizationId, req.body),
    );

    app.delete(
      '/ai/settings',
      { schema: { tags, summary: 'Turn writing help off (the endpoint and key are forgotten; owners and admins)', response: { 204: z.null().describe('Off') } } },
      async (req, reply) => {
        await service.deleteSettings(req.auth.organizationId);
        return reply.status(204).send(null);
      },
    );

    const actions: ActionRoute<AssistAction>[] = [
      {
        action: 'draft',
        summary: 'Draft a post from a brief: one suggestion per channel (or one)',
        description: 'With `integrationIds`, one suggestion per channel in its platform\'s limit and style; without, one suggestion for no channel in particular.',
        body: DraftBodySchema,
      },
      {
        action: 'rewrite',
        summary: "Rewrite a post for each channel, in its platform's limit and style",
        description: 'One suggestion per channel of `integrationIds` (1..20), in order. `content` may be the composer\'s HTML (read as text); suggestions are plain text.',
        body: RewriteBodySchema,
      },
      {
        action: 'thread',
        summary: 'Split a long text into a thread for a channel',
        description: "One suggestion whose `items` are the thread's parts, each counted against the platform's limit (`length` is the longest part's). A platform without threads is a 400 naming `integrationId`.",
        body: ThreadBodySchema,
      },
      {
        action: 'hashtags',
        summary: 'Suggest hashtags for a post',
        description: "One suggestion whose `items` are hashtags (`#word`), most relevant first, `count` at most (default 5); with `integrationId`, in the custom of that channel's platform.",
        body: HashtagsBodySchema,
      },
      {
        action: 'alt-text',
        summary: 'Write alt text for an image of the media library',
        description: 'Needs a model that takes images (`vision: true` in the settings; otherwise a 400 naming `mediaId` says so). Only images; the picture is sent to the model as a data: URL. `maxLength` is 1,000 characters, what most platforms take.',
        body: AltTextBodySchema,
      },
      {
        action: 'translate',
        summary: 'Translate a post (per channel, in its limit)',
        description: 'One translation per channel of `integrationIds` (counted against its platform\'s limit), or one without.',
        body: TranslateBodySchema,
      },
    ];

    for (const a of actions) {
      app.post(
        `/ai/${a.action}`,
        {
          schema: {
            tags,
            summary: a.summary,
            description: `${a.description}\n\n${COMMON}`,
            body: a.body,
            response: { 200: SuggestionsSchema, ...ACTION_ERRORS },
          },
        },
        async (req, reply) => {
          const prepared = await service.prepare(req.auth.organizationId, a.action, req.body);
          if (wantsStream(req)) return stream(req, reply, prepared);
          const { signal, done } = abortOnDisconnect(reply);
          try {
            return await prepared({ signal });
          } finally {
            done();
          }
        },
      );
    }
  };
}
