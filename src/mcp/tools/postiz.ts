import { z } from 'zod';
import type { AppDeps } from '../../deps.js';
import { AppError, validationError, type FieldError } from '../../errors.js';
import { IntegrationSettingsSchema, PlatformIdentifierSchema } from '../../modules/integrations/integrations.schemas.js';
import { MediaItemSchema } from '../../modules/media/media.schemas.js';
import { CreatePostsBodySchema, CreatePostsResponseSchema, InstantSchema } from '../../modules/posts/posts.schemas.js';
import { defineTool } from '../tool.js';

/*
 * The tools the reference service's MCP server offers, under its names and with its argument shapes,
 * so an assistant configured for it works here with only the host changed. Each runs on the same
 * service methods as Tidings' own tools; none has a public route of its own.
 *
 * Facts about the reference these follow (gitroomhq/postiz-app, libraries/nestjs-libraries/src/chat/tools/):
 * - Every tool answers an object; most wrap their answer in `output` (`{ output: [...] }`), the video
 *   options in `video`, the video generation in `{ url }`, uploads and images in the media `{ id, path }`.
 * - integrationList: `{ group?: string }` (a customer id from groupList). Each item: id, name (the
 *   custom name first), picture, platform (the provider identifier), disabled, display (the profile
 *   handle), type, customer `{ id, name }` when the channel has one. Read-only.
 * - groupList: no arguments; `{ output: [{ id, name }] }` of the organisation's customers. Read-only.
 * - integrationSchema: `{ isPremium: boolean, platform: string }` — by platform identifier, not by
 *   channel. Output `{ rules, maxLength, settings (JSON Schema, or the text "No additional settings
 *   required"), tools: [{ methodName, description, dataSchema: [{ key, description, type }] }] }`; an
 *   unknown platform answers empty rules there (here: VALIDATION_FAILED naming `platform`).
 *   isPremium only changes X's maximum length there.
 * - triggerTool: `{ integrationId, methodName, dataSchema: [{ key, value: string }] }`; the pairs
 *   become the method's data object; `{ output }` is what the platform gave.
 * - schedulePostTool: `{ socialPost: [{ integrationId, isPremium: boolean, date: string (UTC),
 *   shortLink: boolean, type: 'draft' | 'schedule' | 'now', postsAndComments: [{ content: string
 *   (HTML, lines in <p>), attachments: string[] (media URLs) }], settings: [{ key, value: any }] }] }`.
 *   All of them are required in its schema; later versions read `attachments ?? []`. postsAndComments[0]
 *   is the post, the rest its comments. Each socialPost entry becomes its own create call with its own
 *   group (so several entries may name the same channel on different days); every entry is checked
 *   before any is created. Output `{ output: [{ postId, integration }] }`, or `{ errors }` text.
 * - postsListTool: `{ startDate, endDate (UTC), customer?: string }`; `{ output: { posts: [{ id,
 *   publishDate, state, error, content, settings, group, integrationId, platform, integrationName }] } }`.
 * - postSettingsTool: `{ id, settings: [{ key, value }] }`: the pairs are merged into the post's
 *   current settings (keys not given stay); content and date unchanged; `{ output: { postId, publishDate } }`.
 * - uploadFromUrlTool: `{ url }` (a URL); answers the stored media `{ id, path }`, the path to pass
 *   verbatim as an attachment.
 * - generateImageTool: `{ prompt: string }`; answers the stored picture `{ id, path }`.
 * - generateVideoOptions: no arguments; `{ video: [{ type, output: 'vertical|horizontal', tools:
 *   [{ functionName, output }], customParams (JSON Schema) }] }`. Read-only.
 * - videoFunctionTool: `{ identifier, functionName }`; answers whatever the provider's function returns
 *   (an object, e.g. the voices to choose from). Read-only.
 * - generateVideoTool: `{ identifier, output: 'vertical' | 'horizontal', customParams: [{ key, value }] }`;
 *   answers `{ url }` of the made video.
 */

type Services = Pick<AppDeps['services'], 'integrations' | 'platforms' | 'groups' | 'posts' | 'media' | 'tools' | 'video'>;

// ── shared pieces ───────────────────────────────────────────────────────────────────────────

/** The reference passes objects as `[{ key, value }]` lists (settings, tool data, video parameters). */
function pairsOf(valueDescription: string) {
  return z.array(
    z.object({
      key: z.string().min(1, 'Required').describe('the field name'),
      value: z.unknown().describe(valueDescription),
    }),
  );
}
type Pairs = { key: string; value?: unknown }[];

/** The object a `[{ key, value }]` list stands for (a key given twice: the last one counts). */
function objectOf(pairs: Pairs): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const { key, value } of pairs) out[key] = value;
  return out;
}

/**
 * A field path of the object made from a pair list (`title.0`) as the caller wrote it: the pair
 * holding the key (`settings.3.value.0`), or the list itself when no pair gives the key.
 */
function pairPath(argument: string, pairs: Pairs, rest: string[]): { path: string; prefix: string } {
  const [key, ...deeper] = rest;
  if (key === undefined) return { path: argument, prefix: '' };
  let index = -1;
  pairs.forEach((p, i) => {
    if (p.key === key) index = i;
  });
  if (index < 0) return { path: argument, prefix: `"${key}": ` };
  return { path: [argument, String(index), 'value', ...deeper].join('.'), prefix: '' };
}

/**
 * Runs a service call, naming the fields of its VALIDATION_FAILED errors as this tool's arguments
 * (`mapField` turns a service field path into the argument path, and may add to the message).
 */
async function asArguments<T>(call: () => Promise<T>, mapField: (f: FieldError) => FieldError, note?: () => string | undefined): Promise<T> {
  try {
    return await call();
  } catch (e) {
    if (!(e instanceof AppError)) throw e;
    const extra = note?.();
    if (e.code === 'VALIDATION_FAILED' && e.extra.fields?.length) {
      const mapped = validationError(e.extra.fields.map(mapField));
      throw new AppError('VALIDATION_FAILED', extra ? `${mapped.message}; ${extra}` : mapped.message, mapped.extra);
    }
    if (extra) throw new AppError(e.code, `${e.message}; ${extra}`, e.extra);
    throw e;
  }
}

const INTEGRATION_ID = 'the channel id (`id` from integrationList)';

// ── argument schemas ────────────────────────────────────────────────────────────────────────

const IntegrationListInput = z.object({
  group: z.string().min(1).optional().describe('only the channels of this group (customer): an `id` from groupList'),
});

const IntegrationSchemaInput = z.object({
  isPremium: z
    .boolean()
    .optional()
    .describe("accepted for compatibility; the length rule of a post follows the channel's own account (an X Premium account may post longer texts)"),
  platform: PlatformIdentifierSchema.describe('the platform identifier (`platform` from integrationList), e.g. bluesky, x, linkedin'),
});

const TriggerToolInput = z.object({
  integrationId: z.string().min(1, 'Required').describe(INTEGRATION_ID),
  methodName: z.string().min(1, 'Required').describe('a `methodName` from the `tools` integrationSchema gives for the channel\'s platform'),
  dataSchema: pairsOf('its value (usually text)').default([]).describe('the data the method takes, one { key, value } per field of its `dataSchema`; empty when it takes none'),
});

const PostItemInput = z.object({
  content: z.string().describe('the text, as HTML: each line in <p>…</p>; h1–h3, strong, u, ul/li are understood (converted to what the platform takes)'),
  attachments: z
    .array(z.string().min(1, 'Required'))
    .default([])
    .describe('pictures or videos of this item: the `path` uploadFromUrlTool answered (or a media id of the library)'),
});

const SocialPostInput = z
  .object({
    integrationId: z.string({ error: 'Required' }).min(1, 'Required').describe(INTEGRATION_ID),
    isPremium: z.boolean().optional().describe('accepted for compatibility; the length rule follows the channel\'s account'),
    date: InstantSchema.optional().describe('when to publish, ISO 8601 (UTC when no offset is given); may be left out with type "now"'),
    shortLink: z.boolean().default(false).describe('shorten the links of the post'),
    type: z.enum(['draft', 'schedule', 'now']).default('schedule').describe('"schedule" publishes at `date`, "now" at once, "draft" saves without publishing or checking platform rules'),
    postsAndComments: z
      .array(PostItemInput)
      .min(1, 'At least one item')
      .max(100)
      .describe('the first item is the post; each further one a comment or reply under it (platforms without them refuse more than one)'),
    settings: pairsOf('its value (an id rather than a label where the platform has both)')
      .default([])
      .describe("the platform settings, one { key, value } per field of integrationSchema's `settings`; empty: the channel's saved defaults"),
  })
  .superRefine((p, ctx) => {
    if (p.date === undefined && p.type !== 'now') ctx.addIssue({ code: 'custom', path: ['date'], message: 'Required (only type "now" may leave it out)' });
  });

const SchedulePostInput = z.object({
  socialPost: z
    .array(SocialPostInput)
    .min(1, 'At least one post')
    .max(50)
    .describe('one entry per post: a channel, its time and its items. Several entries may name the same channel (e.g. one a day)'),
});

const PostsListInput = z.object({
  startDate: InstantSchema.describe('start of the window, ISO 8601 (UTC when no offset is given)'),
  endDate: InstantSchema.describe('end of the window, ISO 8601 (UTC when no offset is given)'),
  customer: z.string().min(1).optional().describe('only the channels of this group (customer): an `id` from groupList'),
});

const PostSettingsInput = z.object({
  id: z.string().min(1, 'Required').describe('the post id (`id` from postsListTool, or `postId` from schedulePostTool)'),
  settings: pairsOf('the new value').min(1, 'At least one setting').describe('the settings to change, merged into the post\'s current ones (keys not given stay as they are)'),
});

const UploadFromUrlInput = z.object({
  url: z.url({ protocol: /^https?$/, error: 'Must be an http(s) URL' }).max(8192).describe('a public http(s) URL of a picture or video; its type is read from the bytes'),
});

const GenerateImageInput = z.object({
  prompt: z.string().min(1, 'Required').describe('what the picture should show'),
});

const VideoFunctionInput = z.object({
  identifier: z.string().min(1, 'Required').max(100).describe('the video provider (`type` from generateVideoOptions)'),
  functionName: z.string().min(1, 'Required').max(100).describe('a `functionName` from that provider\'s `tools`'),
  params: z.unknown().optional().describe("the function's parameters, when it takes any (`params` in generateVideoOptions)"),
});

const GenerateVideoInput = z.object({
  identifier: z.string().min(1, 'Required').max(100).describe('the video provider (`type` from generateVideoOptions)'),
  output: z.enum(['vertical', 'horizontal']).describe('vertical 1080×1920 or horizontal 1920×1080'),
  customParams: pairsOf('its value').default([]).describe("the provider's parameters, one { key, value } per field of its `customParams` JSON Schema"),
});

// ── answers ─────────────────────────────────────────────────────────────────────────────────

const ChannelItem = z.object({
  id: z.string(),
  name: z.string(),
  picture: z.string().nullable(),
  platform: z.string().describe('the platform identifier integrationSchema takes'),
  disabled: z.boolean(),
  display: z.string().nullable().describe('the handle on the platform'),
  refreshNeeded: z.boolean().describe('the channel must be reconnected before it can publish'),
  customer: z.object({ id: z.string(), name: z.string() }).optional(),
});

const PlatformRules = IntegrationSettingsSchema.shape.output.omit({ defaults: true });

const ListedPost = z.object({
  id: z.string(),
  publishDate: z.string().describe('UTC'),
  state: z.enum(['DRAFT', 'QUEUE', 'PUBLISHED', 'ERROR']),
  error: z.string().nullable(),
  content: z.string(),
  settings: z.record(z.string(), z.unknown()),
  group: z.string(),
  integrationId: z.string(),
  platform: z.string(),
  integrationName: z.string(),
  releaseURL: z.string().nullable().describe('the address on the platform once published'),
});

const VideoOption = z.object({
  type: z.string().describe('the provider identifier generateVideoTool takes'),
  name: z.string(),
  description: z.string(),
  output: z.string().describe('the formats it makes, separated by |'),
  creditCost: z.number().int(),
  tools: z.array(z.object({ functionName: z.string(), output: z.string().describe('what it answers'), params: z.record(z.string(), z.unknown()) })),
  customParams: z.record(z.string(), z.unknown()).describe('JSON Schema of the customParams generateVideoTool takes'),
});

const GeneratedVideo = z.object({
  url: z.string().nullable().describe('the video, to pass as an attachment; null while it is still being made'),
  id: z.string().nullable().describe('its media id'),
  jobId: z.string(),
  status: z.enum(['queued', 'running', 'succeeded', 'failed']),
});

// ── schedulePostTool's translation ──────────────────────────────────────────────────────────

type SocialPost = z.output<typeof SocialPostInput>;

/** A media URL (by path) or a library id. */
const mediaRef = (a: string) => (/^[a-z][a-z0-9+.-]*:\/\//i.test(a) || a.startsWith('/') ? { path: a } : a);

/** The `POST /posts` body one socialPost entry stands for. */
function createBodyOf(p: SocialPost) {
  const settings = objectOf(p.settings);
  return {
    type: p.type,
    ...(p.date !== undefined ? { date: p.date } : {}),
    shortLink: p.shortLink,
    tags: [],
    posts: [
      {
        integration: { id: p.integrationId },
        ...(Object.keys(settings).length ? { settings } : {}),
        value: p.postsAndComments.map((item) => ({ content: item.content, image: item.attachments.map(mediaRef) })),
      },
    ],
  };
}

/** A field of the create body (`posts.0.value.1.image.0`) as a field of socialPost entry `i`. */
function socialPostField(i: number, p: SocialPost, f: FieldError): FieldError {
  const parts = f.path.split('.');
  const at = (rest: string[], message = f.message) => ({ path: ['socialPost', String(i), ...rest].join('.'), message });
  if (parts[0] !== 'posts') return at(parts);
  const [, , head, ...rest] = parts;
  if (head === undefined) return at([]);
  if (head === 'integration') return at(['integrationId']);
  if (head === 'settings') {
    const { path, prefix } = pairPath('settings', p.settings, rest);
    return at([path], prefix + f.message);
  }
  if (head === 'value') {
    const [item, field, ...deeper] = rest;
    if (field === 'image') {
      return at(['postsAndComments', item!, 'attachments', ...deeper], deeper.length ? `${f.message} (upload it with uploadFromUrlTool and pass the path it answers)` : f.message);
    }
    return at(['postsAndComments', ...rest]);
  }
  return at([head, ...rest]);
}

// ── the tools ───────────────────────────────────────────────────────────────────────────────

/** The reference service's tools (names and argument shapes), on Tidings' services. */
export function postizTools(services: Services) {
  const { integrations, platforms, groups, posts, media, tools, video } = services;
  return [
    defineTool({
      name: 'integrationList',
      title: 'List channels (Postiz)',
      description:
        'The connected channels posts can go to: `id` (what schedulePostTool and triggerTool take as integrationId), name, `platform` (what integrationSchema takes), handle, and whether it is disabled or must be reconnected. ' +
        '`group` narrows the list to one group of groupList.',
      input: { body: IntegrationListInput },
      output: z.object({ output: z.array(ChannelItem) }),
      annotations: { readOnlyHint: true, idempotentHint: true },
      async run(ctx, { body }) {
        const list = await integrations.listIntegrations(ctx.organizationId, body.group);
        return {
          output: list.map((c) => ({
            id: c.id,
            name: c.name,
            picture: c.picture,
            platform: c.identifier,
            disabled: c.disabled,
            display: c.profile,
            refreshNeeded: c.refreshNeeded,
            ...(c.customer ? { customer: c.customer } : {}),
          })),
        };
      },
      summary: (r) => `${r.output.length} channel(s): ${r.output.map((c) => `${c.name} (${c.platform}, id ${c.id}${c.disabled ? ', disabled' : ''})`).join('; ') || 'none'}`,
    }),
    defineTool({
      name: 'groupList',
      title: 'List channel groups (Postiz)',
      description: "The organisation's groups of channels (customers): `id` and name. Give an id to integrationList (`group`) or postsListTool (`customer`) to see only that group's channels.",
      input: {},
      output: z.object({ output: z.array(z.object({ id: z.string(), name: z.string() })) }),
      annotations: { readOnlyHint: true, idempotentHint: true },
      run: async (ctx) => ({ output: await groups.listGroups(ctx.organizationId) }),
      summary: (r) => `${r.output.length} group(s): ${r.output.map((g) => `${g.name} (id ${g.id})`).join('; ') || 'none'}`,
    }),
    defineTool({
      name: 'integrationSchema',
      title: "A platform's post rules and settings (Postiz)",
      description:
        'Read before writing a post for a platform: its rules, maximum length (and how it is counted), whether comments are published, media limits, ' +
        'the JSON Schema of the `settings` schedulePostTool takes for it (or "No additional settings required"), and the helper methods triggerTool can run to find setting values (boards, pages, playlists…).',
      input: { body: IntegrationSchemaInput },
      output: z.object({ output: PlatformRules }),
      annotations: { readOnlyHint: true, idempotentHint: true },
      run: async (_ctx, { body }) => ({ output: platforms.platformRules(body.platform) }),
      summary: (r) =>
        `Up to ${r.output.maxLength} ${r.output.counting}; comments ${r.output.thread.supported ? 'published' : 'not published'}; ${r.output.media.maxItems} media item(s) at most; ` +
        `${typeof r.output.settings === 'string' ? r.output.settings : 'settings schema included'}; methods for triggerTool: ${r.output.tools.map((t) => t.methodName).join(', ') || 'none'}`,
    }),
    defineTool({
      name: 'triggerTool',
      title: "Run a channel's platform helper (Postiz)",
      description:
        'Runs one of the helper methods integrationSchema lists for a channel\'s platform (e.g. the boards, pages, playlists or flairs to choose from) and answers what the platform gave, often the ids a setting needs. ' +
        'Its data is given as { key, value } pairs.',
      input: { body: TriggerToolInput },
      output: z.object({ output: z.unknown() }),
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: true },
      run: (ctx, { body }) =>
        asArguments(
          () => tools.runTool(ctx.organizationId, body.integrationId, body.methodName, objectOf(body.dataSchema)),
          (f) => {
            const [head, ...rest] = f.path.split('.');
            if (head !== 'data') return f;
            const { path, prefix } = pairPath('dataSchema', body.dataSchema, rest);
            return { path, message: prefix + f.message };
          },
        ),
      summary: (r) => `The platform answered: ${JSON.stringify(r.output ?? null).slice(0, 500)}`,
    }),
    defineTool({
      name: 'schedulePostTool',
      title: 'Schedule posts (Postiz)',
      description:
        'Creates posts: each `socialPost` entry is one post on one channel (integrationId from integrationList) at its own `date`, with its own group. ' +
        'postsAndComments[0] is the post and any further items its comments or replies; attachments are the paths uploadFromUrlTool answers. ' +
        'type "schedule" publishes at `date`, "now" at once, "draft" only saves. Settings are { key, value } pairs following integrationSchema. ' +
        'The entries are created in order; when one is refused, the error names its fields (socialPost.N.…) and says which earlier entries were created.',
      input: { body: SchedulePostInput },
      output: z.object({ output: CreatePostsResponseSchema }),
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
      async run(ctx, { body }) {
        // Every entry is translated and checked for shape before any is created; the platform rules
        // are checked by createPosts, entry by entry.
        const bodies = body.socialPost.map((p, i) => {
          const parsed = CreatePostsBodySchema.safeParse(createBodyOf(p));
          if (!parsed.success) {
            throw validationError(parsed.error.issues.map((issue) => socialPostField(i, p, { path: issue.path.map(String).join('.'), message: issue.message })));
          }
          return parsed.data;
        });
        const created: z.output<typeof CreatePostsResponseSchema> = [];
        for (const [i, createBody] of bodies.entries()) {
          const p = body.socialPost[i]!;
          const r = await asArguments(
            () => posts.createPosts(ctx.organizationId, createBody, { creationMethod: 'MCP' }),
            (f) => socialPostField(i, p, f),
            () => (created.length ? `nothing was created for socialPost ${i} and later; the earlier entries were created: ${created.map((c) => c.postId).join(', ')}` : undefined),
          );
          if (r.status >= 400) throw new AppError('INTERNAL', `schedulePostTool: creating socialPost ${i} answered ${r.status}`);
          created.push(...CreatePostsResponseSchema.parse(r.body));
        }
        return { output: created };
      },
      summary: (r) => `Created ${r.output.length} post(s): ${r.output.map((c) => `${c.postId} on channel ${c.integration}`).join(', ')}`,
    }),
    defineTool({
      name: 'postsListTool',
      title: 'List posts in a time window (Postiz)',
      description:
        'Every post whose publish date falls between startDate and endDate (UTC), whatever its state (QUEUE, DRAFT, PUBLISHED, ERROR), with its content, settings, channel, error and address once published. ' +
        'For all upcoming posts, give a wide window (now to a year ahead).',
      input: { body: PostsListInput },
      output: z.object({ output: z.object({ posts: z.array(ListedPost) }) }),
      annotations: { readOnlyHint: true, idempotentHint: true },
      async run(ctx, { body }) {
        const listed = await posts.listPosts(ctx.organizationId, body);
        return {
          output: {
            posts: listed.posts.map((p) => ({
              id: p.id,
              publishDate: p.publishDate,
              state: p.state,
              error: p.error,
              content: p.content,
              settings: p.settings,
              group: p.group,
              integrationId: p.integration.id,
              platform: p.integration.providerIdentifier,
              integrationName: p.integration.name,
              releaseURL: p.releaseURL,
            })),
          },
        };
      },
      summary: (r) => `${r.output.posts.length} post(s): ${r.output.posts.map((p) => `${p.id} ${p.state} ${p.publishDate} on ${p.platform}`).join('; ') || 'none'}`,
    }),
    defineTool({
      name: 'postSettingsTool',
      title: "Change a post's settings (Postiz)",
      description:
        'Changes platform settings of a post that has not been published (queued or draft): the { key, value } pairs given are merged into its current settings, the others stay; its content and date do not change. ' +
        'Which keys exist: integrationSchema for the post\'s platform.',
      input: { body: PostSettingsInput },
      output: z.object({ output: z.object({ postId: z.string(), publishDate: z.string(), settings: z.record(z.string(), z.unknown()) }) }),
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      async run(ctx, { body }) {
        const current = await posts.getPost(ctx.organizationId, body.id);
        const merged = { ...current.settings, ...objectOf(body.settings) };
        const output = await asArguments(
          () => posts.replaceSettings(ctx.organizationId, body.id, merged),
          (f) => {
            const [head, ...rest] = f.path.split('.');
            if (head !== 'settings') return f;
            const { path, prefix } = pairPath('settings', body.settings, rest);
            return { path, message: prefix + f.message };
          },
        );
        return { output };
      },
      summary: (r) => `Settings of post ${r.output.postId} (publishing ${r.output.publishDate}) are now ${JSON.stringify(r.output.settings).slice(0, 300)}`,
    }),
    defineTool({
      name: 'uploadFromUrlTool',
      title: 'Import a picture or video from a URL (Postiz)',
      description:
        'Downloads a picture or video from a public http(s) URL into the media library and answers its `id` and `path`: pass the path as it is in schedulePostTool\'s attachments. ' +
        'Do this for any outside media before scheduling, and wait for the answer.',
      input: { body: UploadFromUrlInput },
      output: MediaItemSchema,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
      run: (ctx, { body }) => media.uploadFromUrl(ctx.organizationId, body.url, ctx.signal),
      summary: (m) => `Stored ${m.type} ${m.id} at ${m.path}`,
    }),
    defineTool({
      name: 'generateImageTool',
      title: 'Generate a picture (Postiz; not offered here)',
      description: 'Image generation is not offered by this deployment: the call answers an error saying so. Use uploadFromUrlTool for a picture that exists at a URL, or generateVideoTool for a video.',
      input: { body: GenerateImageInput },
      output: z.object({ id: z.string(), path: z.string() }),
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
      run: async () => {
        throw new AppError(
          'PLATFORM_NOT_AVAILABLE',
          'Image generation is not offered by this deployment (Tidings has no image model). Upload an existing picture with uploadFromUrlTool instead, or make a video with generateVideoTool.',
        );
      },
      summary: (m) => `Stored picture ${m.id} at ${m.path}`,
    }),
    defineTool({
      name: 'generateVideoOptions',
      title: 'Video generation options (Postiz)',
      description:
        'The video providers of this deployment: `type` (the identifier generateVideoTool and videoFunctionTool take), the formats it makes, its credit cost, the JSON Schema of its customParams, ' +
        'and its helper functions for videoFunctionTool (templates, fonts, voices…). An empty list: video generation is off here.',
      input: {},
      output: z.object({ video: z.array(VideoOption) }),
      annotations: { readOnlyHint: true, idempotentHint: true },
      run: async () => ({
        video: video.listProviders().providers.map((p) => ({
          type: p.identifier,
          name: p.name,
          description: p.description,
          output: p.outputs.map((o) => o.output).join('|'),
          creditCost: p.creditCost,
          tools: p.functions.map((f) => ({ functionName: f.name, output: f.description, params: f.params })),
          customParams: p.customParams,
        })),
      }),
      summary: (r) => `${r.video.length} video provider(s): ${r.video.map((v) => `${v.type} (${v.output}; functions: ${v.tools.map((t) => t.functionName).join(', ') || 'none'})`).join('; ') || 'none'}`,
    }),
    defineTool({
      name: 'videoFunctionTool',
      title: "Run a video provider's helper function (Postiz)",
      description: 'Runs a helper function of a video provider (from generateVideoOptions `tools`) to find values its customParams need: templates, fonts, voices, or a preview.',
      input: { body: VideoFunctionInput },
      output: z.record(z.string(), z.unknown()),
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: true },
      async run(ctx, { body }) {
        const result = await video.callFunction(ctx.organizationId, body, ctx.signal);
        // the reference answers the function's own object; anything else is wrapped to stay an object
        return result !== null && typeof result === 'object' && !Array.isArray(result) ? (result as Record<string, unknown>) : { output: result };
      },
      summary: (r) => `The function answered: ${JSON.stringify(r).slice(0, 500)}`,
    }),
    defineTool({
      name: 'generateVideoTool',
      title: 'Generate a video (Postiz)',
      description:
        'Makes a video with a provider of generateVideoOptions (`identifier`), in the `output` format, from its customParams given as { key, value } pairs (their JSON Schema is in generateVideoOptions; videoFunctionTool finds values such as templates). ' +
        'Takes plan video credits. Answers the video\'s `url` to pass as an attachment, or, while it is still being made, its job id and status.',
      input: { body: GenerateVideoInput },
      output: GeneratedVideo,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
      async run(ctx, { body }) {
        const r = await asArguments(
          () => video.generate(ctx.organizationId, { type: body.identifier, output: body.output, customParams: objectOf(body.customParams) }, { signal: ctx.signal }),
          (f) => {
            const [head, ...rest] = f.path.split('.');
            if (head === 'type') return { path: 'identifier', message: f.message };
            if (head !== 'customParams') return f;
            const { path, prefix } = pairPath('customParams', body.customParams, rest);
            return { path, message: prefix + f.message };
          },
        );
        if (r.status === 201) return { url: r.media.path, id: r.media.id, jobId: r.jobId, status: 'succeeded' as const };
        return { url: null, id: null, jobId: r.job.id, status: r.job.status };
      },
      summary: (r) => (r.url ? `Video ready at ${r.url} (media ${r.id})` : `Video job ${r.jobId} is ${r.status}; it is not finished yet`),
    }),
  ];
}
