import { NO_ACTIVITY, type ActivityRecorder } from '../../core/activity.js';
import { currentActor } from '../../core/actor.js';
import type { MediaStorage } from '../../core/media/storage.js';
import { AppError, fieldError } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import { isPlausibleHostname } from '../../lib/safe-address.js';
import type { SecretBox } from '../../lib/secret-box.js';
import { htmlToText } from '../../platforms/common/html.js';
import { isPlatformIdentifier, type PlatformAdapter, type PlatformIdentifier } from '../../platforms/platform.js';
import { countGraphemes, countingUnit, countText } from '../../platforms/text-length.js';
import type { SlidingLogStore } from '../../rate-limit/store.js';
import type { IntegrationsRepository } from '../integrations/integrations.repository.js';
import type { MediaRepository } from '../media/media.repository.js';
import { aimFor, ASSIST_LIMITS, cleanAnswer, parseHashtags, PROMPTS, splitThread, type Target } from './assist-prompts.js';
import type { AiSettingsRow, AssistRepository } from './assist.repository.js';
import type {
  AiSettings,
  AltTextBody,
  DraftBody,
  HashtagsBody,
  PutAiSettingsBody,
  RewriteBody,
  Suggestion,
  Suggestions,
  ThreadBody,
  TranslateBody,
} from './assist.schemas.js';
import type { ChatMessage, Endpoint, OpenAiClient } from './openai-client.js';

/** The writing-help actions and their bodies (`POST /ai/<action>`). */
export interface ActionBodies {
  draft: DraftBody;
  rewrite: RewriteBody;
  thread: ThreadBody;
  hashtags: HashtagsBody;
  'alt-text': AltTextBody;
  translate: TranslateBody;
}
export type AssistAction = keyof ActionBodies;
export const ASSIST_ACTIONS: readonly AssistAction[] = ['draft', 'rewrite', 'thread', 'hashtags', 'alt-text', 'translate'];

export interface RunHooks {
  /** the caller went away: the model request is closed */
  signal?: AbortSignal;
  /** streaming: each piece of a suggestion's text as the model writes it (a preview; `done` holds what counts) */
  onDelta?: (index: number, text: string) => void;
}

/** A checked action, ready to run: nothing left to refuse but the model's own failures. */
export type PreparedAction = (hooks?: RunHooks) => Promise<Suggestions>;

export const NOT_CONFIGURED_MESSAGE = 'Writing help is off: set a model with PUT /ai/settings (Settings → Writing help)';

/** Images larger than this are not sent as a data: URL (models take about 20 MB at most). */
const MAX_IMAGE_BYTES = 20 * 1024 * 1024;
const RATE_WINDOW_MS = 60_000;

type Kind = 'text' | 'thread' | 'hashtags';

/** One suggestion to ask the model for. */
interface Job {
  integrationId: string | null;
  platform: PlatformIdentifier | null;
  kind: Kind;
  messages: ChatMessage[];
  temperature: number;
  /** the limit the answer is counted against (none: counted, never refused) */
  limit: { maxLength: number; count: (text: string) => number; unit: string } | null;
  /** hashtags: how many */
  count?: number;
  /** a note to add to the answer whatever it is */
  note?: string;
}

export interface AssistServiceDeps {
  repo: AssistRepository;
  integrations: Pick<IntegrationsRepository, 'listIntegrations'>;
  media: Pick<MediaRepository, 'findMedia'>;
  storage: Pick<MediaStorage, 'blob'>;
  adapters: Record<PlatformIdentifier, PlatformAdapter>;
  client: OpenAiClient;
  secretBox: SecretBox;
  /** the rate-limit store (per organisation: config.ai.perMinute model calls a minute) */
  store: SlidingLogStore;
  perMinute: number;
  clock: Clock;
  /** the activity log (none: nothing recorded); never given the key */
  activity?: ActivityRecorder;
}

/** Composer text may be the editor's HTML: the model is given plain text. */
function plain(content: string): string {
  return /<[a-z][^>]*>/i.test(content) ? htmlToText(content) : content;
}

/** Runs `fn` over `items` with at most `limit` at a time, answers in order. */
async function mapLimited<T, R>(items: T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

export function createAssistService(deps: AssistServiceDeps) {
  const { repo, client, secretBox, adapters, clock } = deps;
  const activity = deps.activity ?? NO_ACTIVITY;

  function view(row: AiSettingsRow | undefined): AiSettings {
    return row
      ? { configured: true, baseUrl: row.baseUrl, model: row.model, vision: row.vision, hasApiKey: row.apiKeySealed !== null }
      : { configured: false, baseUrl: null, model: null, vision: false, hasApiKey: false };
  }

  /** People manage the endpoint as owners or admins; API keys and apps act for the organisation. */
  function requireManager() {
    const actor = currentActor();
    if (actor.kind === 'user' && actor.role !== 'owner' && actor.role !== 'admin') {
      throw new AppError('FORBIDDEN', 'Only owners and admins of the organisation set the writing-help model');
    }
  }

  async function endpointOf(organizationId: string): Promise<{ endpoint: Endpoint; vision: boolean }> {
    const row = await repo.findSettings(organizationId);
    if (!row) throw new AppError('AI_NOT_CONFIGURED', NOT_CONFIGURED_MESSAGE);
    return { endpoint: { baseUrl: row.baseUrl, model: row.model, apiKey: row.apiKeySealed === null ? null : secretBox.open(row.apiKeySealed) }, vision: row.vision };
  }

  /**
   * Counts the model calls an action makes (one per suggestion; the one retry to shorten is not
   * counted) against config.ai.perMinute for the organisation, all or none: a refused action
   * records nothing. Checked then taken (not atomic across processes: a race may let a burst
   * pass by a few calls, never a stream of them).
   */
  async function takeRate(organizationId: string, calls: number) {
    const key = `ai:${organizationId}`;
    const limit = deps.perMinute;
    const now = clock.now();
    if (calls > limit) {
      throw new AppError('AI_RATE_LIMITED', `This asks the model ${calls} times; writing help is limited to ${limit} calls a minute per organisation (AI_RATE_LIMIT): choose fewer channels`, {
        headers: { 'retry-after': '60' },
      });
    }
    const seen = await deps.store.peek(key, RATE_WINDOW_MS, now);
    if (seen.count + calls > limit) {
      const wait = Math.max(1, Math.ceil((seen.oldest + RATE_WINDOW_MS - now) / 1000));
      throw new AppError('AI_RATE_LIMITED', `Writing help is limited to ${limit} calls to the model a minute per organisation (AI_RATE_LIMIT); retry in ${wait} s`, {
        headers: { 'retry-after': String(wait) },
      });
    }
    for (let i = 0; i < calls; i++) await deps.store.take(key, Number.MAX_SAFE_INTEGER, RATE_WINDOW_MS, now);
  }

  /** The channels named (each the organisation's, live), in the order given; a 400 names the first unknown one. */
  async function channelsOf(organizationId: string, ids: string[], field: string) {
    if (ids.length === 0) return [];
    const rows = await deps.integrations.listIntegrations(organizationId);
    const byId = new Map(rows.map((r) => [r.integration.id, r.integration]));
    return ids.map((id, i) => {
      const row = byId.get(id);
      const path = field.endsWith('Ids') ? `${field}.${i}` : field;
      if (!row) throw fieldError(path, `No channel ${id} in this organisation`);
      if (!isPlatformIdentifier(row.identifier)) throw fieldError(path, `Channel ${id} is on a platform this version does not know (${row.identifier})`);
      return { id: row.id, identifier: row.identifier, adapter: adapters[row.identifier] };
    });
  }

  type Channel = Awaited<ReturnType<typeof channelsOf>>[number];

  function targetOf(channel: Channel | undefined): Target {
    if (!channel) return { maxLength: ASSIST_LIMITS.genericAim, aim: ASSIST_LIMITS.genericAim, unit: 'characters' };
    const { text, displayName } = channel.adapter.metadata;
    return {
      platform: { identifier: channel.identifier, displayName },
      maxLength: text.maxLength,
      aim: aimFor(channel.identifier, text.maxLength),
      unit: countingUnit(text.counting),
    };
  }

  function limitOf(channel: Channel | undefined): Job['limit'] {
    if (!channel) return null;
    const { text } = channel.adapter.metadata;
    return { maxLength: text.maxLength, count: (t) => countText(t, text.counting), unit: countingUnit(text.counting) };
  }

  /** One job per channel (or one without a channel). */
  function perChannel(channels: Channel[], make: (target: Target) => ChatMessage[], temperature: number): Job[] {
    const list: (Channel | undefined)[] = channels.length > 0 ? channels : [undefined];
    return list.map((c) => ({ integrationId: c?.id ?? null, platform: c?.identifier ?? null, kind: 'text', messages: make(targetOf(c)), temperature, limit: limitOf(c) }));
  }

  /** The suggestion an answer makes (parsed and counted). */
  function suggestionOf(job: Job, answer: string): Suggestion & { over?: { length: number; part?: number } } {
    const base = { integrationId: job.integrationId, platform: job.platform };
    const note = (s: string | undefined) => (s || job.note ? { note: [s, job.note].filter(Boolean).join(' ') } : {});
    if (job.kind === 'hashtags') {
      let items = parseHashtags(answer, job.count ?? ASSIST_LIMITS.defaultHashtags);
      // Tags that would not fit the platform's limit on their own are dropped from the end.
      while (job.limit && items.length > 0 && job.limit.count(items.join(' ')) > job.limit.maxLength) items = items.slice(0, -1);
      const content = items.join(' ');
      return {
        ...base,
        content,
        items,
        length: job.limit ? job.limit.count(content) : countGraphemes(content),
        maxLength: job.limit?.maxLength ?? null,
        fits: items.length > 0,
        ...note(items.length === 0 ? 'The model answered no hashtags' : undefined),
      };
    }
    if (job.kind === 'thread') {
      const items = splitThread(answer);
      const lengths = items.map((p) => job.limit!.count(p));
      const overIndex = lengths.findIndex((l) => l > job.limit!.maxLength);
      const longest = lengths.length === 0 ? 0 : Math.max(...lengths);
      const fits = items.length > 0 && overIndex === -1;
      return {
        ...base,
        content: items.join('\n\n'),
        items,
        length: longest,
        maxLength: job.limit!.maxLength,
        fits,
        ...note(
          items.length === 0
            ? 'The model answered nothing'
            : overIndex === -1
              ? undefined
              : `Part ${overIndex + 1} is ${lengths[overIndex]} ${job.limit!.unit}, over the limit of ${job.limit!.maxLength}: shorten it before using this thread.`,
        ),
        ...(overIndex === -1 ? {} : { over: { length: lengths[overIndex]!, part: overIndex } }),
      };
    }
    const content = cleanAnswer(answer);
    if (!job.limit) return { ...base, content, length: countGraphemes(content), maxLength: null, fits: content !== '', ...note(content === '' ? 'The model answered nothing' : undefined) };
    const length = job.limit.count(content);
    const fits = content !== '' && length <= job.limit.maxLength;
    return {
      ...base,
      content,
      length,
      maxLength: job.limit.maxLength,
      fits,
      ...note(
        content === ''
          ? 'The model answered nothing'
          : fits
            ? undefined
            : `${length} ${job.limit.unit}, over the limit of ${job.limit.maxLength}, after the model was asked once to shorten it: shorten it before using it.`,
      ),
      ...(fits || content === '' ? {} : { over: { length } }),
    };
  }

  /** Asks for each job's suggestion; an answer over its limit is sent back once to be shortened. */
  async function run(endpoint: Endpoint, jobs: Job[], hooks: RunHooks = {}): Promise<Suggestions> {
    const suggestions = await mapLimited(jobs, ASSIST_LIMITS.concurrency, async (job, index) => {
      const onDelta = hooks.onDelta;
      const answer = await client.complete(endpoint, {
        messages: job.messages,
        temperature: job.temperature,
        signal: hooks.signal,
        onDelta: onDelta && ((text) => onDelta(index, text)),
      });
      const first = suggestionOf(job, answer);
      if (!first.over || !job.limit) return strip(first);
      // Once more, told the count and the limit; not streamed (the `done` event carries it).
      const again = await client.complete(endpoint, {
        messages: PROMPTS.shorten(job.messages, answer, { ...first.over, maxLength: job.limit.maxLength, unit: job.limit.unit }),
        temperature: job.temperature,
        signal: hooks.signal,
      });
      const second = suggestionOf(job, again);
      if (second.fits) return strip({ ...second, note: [second.note, 'Shortened on a second request: the first answer was over the limit.'].filter(Boolean).join(' ') });
      return strip(second.content === '' ? first : second);
    });
    return { suggestions };
  }

  function strip(s: Suggestion & { over?: unknown }): Suggestion {
    const { over: _over, ...rest } = s;
    return rest;
  }

  const builders: { [A in AssistAction]: (organizationId: string, body: ActionBodies[A], vision: boolean) => Promise<Job[]> } = {
    async draft(organizationId, body) {
      const channels = await channelsOf(organizationId, body.integrationIds ?? [], 'integrationIds');
      return perChannel(channels, (t) => PROMPTS.draft(body, t), ASSIST_LIMITS.temperature.creative);
    },
    async rewrite(organizationId, body) {
      const channels = await channelsOf(organizationId, body.integrationIds, 'integrationIds');
      const content = plain(body.content);
      return perChannel(channels, (t) => PROMPTS.rewrite({ content, instructions: body.instructions }, t), ASSIST_LIMITS.temperature.creative);
    },
    async thread(organizationId, body) {
      const [channel] = await channelsOf(organizationId, [body.integrationId], 'integrationId');
      if (!channel!.adapter.metadata.thread.supported) {
        throw fieldError('integrationId', `${channel!.adapter.metadata.displayName} does not publish threads: choose a channel whose platform does`);
      }
      const target = targetOf(channel);
      return [
        {
          integrationId: channel!.id,
          platform: channel!.identifier,
          kind: 'thread',
          messages: PROMPTS.thread({ content: plain(body.content) }, { ...target, maxItems: ASSIST_LIMITS.maxThreadItems }),
          temperature: ASSIST_LIMITS.temperature.exact,
          limit: limitOf(channel),
        },
      ];
    },
    async hashtags(organizationId, body) {
      const channels = body.integrationId ? await channelsOf(organizationId, [body.integrationId], 'integrationId') : [];
      const channel = channels[0];
      const count = body.count ?? ASSIST_LIMITS.defaultHashtags;
      return [
        {
          integrationId: channel?.id ?? null,
          platform: channel?.identifier ?? null,
          kind: 'hashtags',
          messages: PROMPTS.hashtags({ content: plain(body.content), count }, channel ? targetOf(channel) : {}),
          temperature: ASSIST_LIMITS.temperature.exact,
          limit: limitOf(channel),
          count,
        },
      ];
    },
    async 'alt-text'(organizationId, body, vision) {
      if (!vision) throw fieldError('mediaId', 'The writing-help model does not take images: turn on `vision` in PUT /ai/settings (Settings → Writing help) with a model that does');
      const row = await deps.media.findMedia(organizationId, body.mediaId);
      if (!row) throw fieldError('mediaId', `No media ${body.mediaId} in the library`);
      if (row.type !== 'image') throw fieldError('mediaId', `Alt text is written for images; this is a ${row.type}`);
      if (row.size > MAX_IMAGE_BYTES) throw fieldError('mediaId', `The image is ${Math.ceil(row.size / 1024 / 1024)} MB; models take images up to ${MAX_IMAGE_BYTES / 1024 / 1024} MB`);
      const bytes = Buffer.from(await (await deps.storage.blob(row.storageKey, row.mimeType)).arrayBuffer());
      const maxLength = ASSIST_LIMITS.altTextMaxLength;
      return [
        {
          integrationId: null,
          platform: null,
          kind: 'text',
          messages: PROMPTS.altText({ imageDataUrl: `data:${row.mimeType};base64,${bytes.toString('base64')}`, language: body.language }, { maxLength, aim: maxLength, unit: 'characters' }),
          temperature: ASSIST_LIMITS.temperature.exact,
          limit: { maxLength, count: countGraphemes, unit: 'characters' },
        },
      ];
    },
    async translate(organizationId, body) {
      const channels = await channelsOf(organizationId, body.integrationIds ?? [], 'integrationIds');
      const content = plain(body.content);
      return perChannel(channels, (t) => PROMPTS.translate({ content, language: body.language }, t), ASSIST_LIMITS.temperature.exact);
    },
  };

  /**
   * Checks an action (writing help on, channels and media the organisation's, the per-organisation
   * rate limit) and answers it ready to run: whatever it refuses is thrown before any request
   * leaves, so a streaming route can still answer it as a JSON error.
   */
  async function prepare<A extends AssistAction>(organizationId: string, action: A, body: ActionBodies[A]): Promise<PreparedAction> {
    const { endpoint, vision } = await endpointOf(organizationId);
    const jobs = await builders[action](organizationId, body, vision);
    await takeRate(organizationId, jobs.length);
    return (hooks) => run(endpoint, jobs, hooks);
  }

  return {
    prepare,

    async getSettings(organizationId: string): Promise<AiSettings> {
      return view(await repo.findSettings(organizationId));
    },

    /**
     * Sets the model endpoint after checking it once (`GET {baseUrl}/models` with the key): an
     * unreachable or refused address is a 400 naming `baseUrl`, a refused key one naming `apiKey`,
     * a model the endpoint does not list one naming `model`. The key is stored sealed.
     */
    async putSettings(organizationId: string, body: PutAiSettingsBody): Promise<AiSettings> {
      requireManager();
      const url = new URL(body.baseUrl);
      if (!isPlausibleHostname(url.hostname)) throw fieldError('baseUrl', `${url.hostname} is not a host name or address`);
      const existing = await repo.findSettings(organizationId);
      let apiKey: string | null;
      if (body.apiKey === undefined) {
        apiKey = existing?.apiKeySealed ? secretBox.open(existing.apiKeySealed) : null;
        // A stored key is never sent to a new address someone typed: it must be given again.
        if (apiKey !== null && existing && new URL(existing.baseUrl).origin !== url.origin) {
          throw fieldError('apiKey', 'Give the key again (or null for none) when the endpoint address changes: the stored key is only sent to the address it was saved for');
        }
      } else {
        apiKey = body.apiKey;
      }
      const baseUrl = body.baseUrl.replace(/\/+$/, '');
      const check = await client.checkEndpoint({ baseUrl, model: body.model, apiKey });
      if (!check.ok) throw fieldError(check.field, check.message);
      const row = await repo.saveSettings({
        organizationId,
        baseUrl,
        model: body.model,
        apiKeySealed: apiKey === null ? null : secretBox.seal(apiKey),
        vision: body.vision ?? false,
        updatedAt: new Date(clock.now()),
      });
      await activity.record({
        organizationId,
        action: existing ? 'ai_settings.updated' : 'ai_settings.created',
        targetKind: 'ai_settings',
        targetId: null,
        targetName: 'Writing help',
        details: { baseUrl, model: body.model, vision: row.vision, hasApiKey: apiKey !== null },
      });
      return view(row);
    },

    /** Turns writing help off (the endpoint and key forgotten). Idempotent. */
    async deleteSettings(organizationId: string): Promise<void> {
      requireManager();
      if (await repo.deleteSettings(organizationId)) {
        await activity.record({ organizationId, action: 'ai_settings.deleted', targetKind: 'ai_settings', targetId: null, targetName: 'Writing help' });
      }
    },

    /** `prepare` and run at once (non-streaming callers: MCP tools). Writes nothing. */
    async suggest<A extends AssistAction>(organizationId: string, action: A, body: ActionBodies[A], hooks?: RunHooks): Promise<Suggestions> {
      return (await prepare(organizationId, action, body))(hooks);
    },
  };
}

export type AssistService = ReturnType<typeof createAssistService>;
