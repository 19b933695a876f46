import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ErrorCode, GetPromptRequestSchema, ListPromptsRequestSchema, McpError, type GetPromptResult, type Prompt } from '@modelcontextprotocol/sdk/types.js';
import type { AppDeps } from '../deps.js';
import type { Integration } from '../modules/integrations/integrations.schemas.js';
import { CHANNELS_URI } from './resources.js';
import { contextOf, type ChargedCaller } from './server.js';

type Args = Record<string, string>;

interface PromptDefinition extends Prompt {
  arguments: NonNullable<Prompt['arguments']>;
  /** the text of the user message; `channels` are the caller's channels the `channels` argument chose (all when it was not given) */
  build(args: Args, chosen: Integration[] | undefined): string;
}

const DAY_MS = 86_400_000;

/** `startDate` as a day (YYYY-MM-DD), or undefined when not given; a wrong value is refused naming the argument. */
function dayOf(value: string | undefined): string | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const v = value.trim();
  const ms = /^\d{4}-\d{2}-\d{2}(T.*)?$/.test(v) ? Date.parse(v.length === 10 ? `${v}T00:00:00Z` : v) : NaN;
  if (Number.isNaN(ms)) throw new McpError(ErrorCode.InvalidParams, `Argument "startDate": "${value}" is not a date; give YYYY-MM-DD (or an ISO 8601 date-time)`);
  return new Date(ms).toISOString().slice(0, 10);
}

function channelLine(c: Integration): string {
  const state = c.disabled ? ' — disabled, skip it' : c.refreshNeeded ? ' — needs reconnecting, skip it and tell me' : '';
  return `- ${c.name} (${c.identifier}${c.profile ? `, @${c.profile}` : ''}): channelId ${c.id}${state}`;
}

/** Step 1 of both prompts: the channels to work with, from the argument or from list_channels. */
function channelsStep(chosen: Integration[] | undefined): string {
  if (!chosen) {
    return '1. Call list_channels to see the connected channels (their ids and platforms). Leave out disabled channels and tell me about any that needs reconnecting.';
  }
  return ['1. Work with these channels only (their ids are what the tools take):', ...chosen.map(channelLine)].join('\n');
}

const RULES_STEP =
  '2. For each channel, call get_channel_settings with its channelId and note: the maximum length and how it is counted (plain characters, weighted characters, bytes…), ' +
  'whether replies in a thread are published, the media limits (how many pictures or videos, which types, sizes, durations), and the `settings` JSON Schema with the fields a post on it must give. ' +
  `The same rules per platform are readable without a channel as the resource tidings://platforms/{identifier}/rules.`;

const MEDIA_STEP =
  'If a post should carry a picture or video that exists on the web, call upload_media_from_url with its address first and put the returned id and path in that item\'s `image` list; respect the channel\'s media limits.';

const DRAFT_STEP =
  'Create the posts with create_posts and type "draft": nothing is published, and I review them in the calendar first. ' +
  'One create_posts call per publishing time (its `date`, ISO 8601 in UTC), with one posts[] entry per channel: `integration.id` the channelId, `value` the items (value[0] the post, value[1..] thread replies), and `settings` as that channel\'s schema requires. ' +
  'If create_posts answers an error, read its fields, fix those and call it again.';

const PROMPTS: PromptDefinition[] = [
  {
    name: 'plan_week',
    title: 'Plan a week of posts',
    description: 'Plan a week of posts across my channels on one topic, as drafts to review.',
    arguments: [
      { name: 'topic', description: 'what the week\'s posts are about (a product launch, a theme, an event…)', required: true },
      { name: 'startDate', description: 'first day of the week, YYYY-MM-DD (default: tomorrow)', required: false },
      { name: 'channels', description: 'channel ids or names, separated by commas (default: every connected channel)', required: false },
    ],
    build(args, chosen) {
      const start = dayOf(args.startDate) ?? new Date(Date.now() + DAY_MS).toISOString().slice(0, 10);
      const end = new Date(Date.parse(`${start}T00:00:00Z`) + 6 * DAY_MS).toISOString().slice(0, 10);
      return [
        `Plan one week of social posts about: ${args.topic}`,
        `The week runs from ${start} to ${end} (dates in UTC). Use the Tidings tools in this order:`,
        channelsStep(chosen),
        RULES_STEP,
        '3. Sketch the week before writing anything: which channel posts on which day, and a different angle each day so the week tells a story instead of repeating itself. Write each text for its platform (length, tone, hashtags where they are usual) rather than one text pasted everywhere.',
        '4. For each post, call find_free_slot with the channel\'s channelId for a free time at one of its posting times; if that falls outside the week, pick a time inside it yourself. Call list_posts for the week to avoid crowding days that already have posts.',
        `5. ${MEDIA_STEP}`,
        `6. ${DRAFT_STEP}`,
        '7. Finish with a table (date and time, channel, the first words of each post, post id) and ask me which drafts to schedule; change_post_status with "schedule" queues a draft once I agree.',
      ].join('\n\n');
    },
  },
  {
    name: 'article_to_threads',
    title: 'Turn an article into threads',
    description: 'Turn an article into a thread (or a single post where threads are not published) for each of my channels, as drafts to review.',
    arguments: [
      { name: 'article', description: 'the article\'s text, or its http(s) address', required: true },
      { name: 'channels', description: 'channel ids or names, separated by commas (default: every connected channel)', required: false },
    ],
    build(args, chosen) {
      const article = args.article!.trim();
      const isUrl = /^https?:\/\/\S+$/i.test(article);
      return [
        isUrl
          ? `Turn the article at ${article} into a thread for each of my channels. Read it first (fetch the address); if you cannot read it, tell me instead of guessing its content.`
          : `Turn this article into a thread for each of my channels:\n\n<article>\n${article}\n</article>`,
        'Use the Tidings tools in this order:',
        channelsStep(chosen),
        RULES_STEP,
        '3. For each channel, split the article into items that each fit its maximum length as that channel counts it: value[0] opens with the main point, the next items carry one idea each, and the last one links to the article when it has an address. Where the platform does not publish threads, write one post that fits instead of a thread.',
        `4. ${MEDIA_STEP} A picture from the article suits the first item.`,
        '5. Call find_free_slot with each channelId for a publishing time.',
        `6. ${DRAFT_STEP}`,
        '7. Show me each channel\'s thread as it will read, with the post ids, and ask before scheduling any of them (change_post_status with "schedule").',
      ].join('\n\n');
    },
  },
];

/** The channels the `channels` argument names (by id, name or handle, case-insensitive); an unknown one is refused by name. */
function chooseChannels(all: Integration[], value: string): Integration[] {
  const wanted = value.split(',').map((s) => s.trim()).filter((s) => s !== '');
  const chosen: Integration[] = [];
  for (const w of wanted) {
    const key = w.replace(/^@/, '').toLowerCase();
    const match = all.find((c) => c.id === w || c.name.toLowerCase() === key || c.profile?.toLowerCase() === key);
    if (!match) throw new McpError(ErrorCode.InvalidParams, `Argument "channels": no connected channel is "${w}"; list_channels (or the resource ${CHANNELS_URI}) names them`);
    if (!chosen.includes(match)) chosen.push(match);
  }
  if (chosen.length === 0) throw new McpError(ErrorCode.InvalidParams, 'Argument "channels" names no channel; give channel ids or names separated by commas, or leave it out for all');
  return chosen;
}

/**
 * MCP prompts: tasks a person starts from the assistant's prompt menu, answered as one user
 * message that tells the assistant which tools to call in which order, ending with drafts the
 * person reviews. The `channels` argument is checked against the caller's organisation.
 */
export function prompts(services: Pick<AppDeps['services'], 'integrations'>) {
  const byName = new Map(PROMPTS.map((p) => [p.name, p]));
  const listed: Prompt[] = PROMPTS.map(({ name, title, description, arguments: args }) => ({ name, title, description, arguments: args }));
  return (server: Server, charged: ChargedCaller) => {
    server.setRequestHandler(ListPromptsRequestSchema, (_request, extra) => {
      contextOf(extra.authInfo);
      return { prompts: listed };
    });

    server.setRequestHandler(GetPromptRequestSchema, async (request, extra): Promise<GetPromptResult> => {
      const { organizationId } = await charged(extra.authInfo);
      const prompt = byName.get(request.params.name);
      if (!prompt) throw new McpError(ErrorCode.InvalidParams, `Unknown prompt "${request.params.name}": prompts/list names them (${PROMPTS.map((p) => p.name).join(', ')})`);
      const args: Args = request.params.arguments ?? {};
      const known = new Set(prompt.arguments.map((a) => a.name));
      const unknown = Object.keys(args).filter((k) => !known.has(k));
      if (unknown.length > 0) throw new McpError(ErrorCode.InvalidParams, `Prompt ${prompt.name} has no argument ${unknown.map((k) => `"${k}"`).join(', ')}; it takes ${[...known].join(', ')}`);
      for (const a of prompt.arguments) {
        if (a.required && !args[a.name]?.trim()) throw new McpError(ErrorCode.InvalidParams, `Prompt ${prompt.name} needs the argument "${a.name}" (${a.description})`);
      }
      const chosen = args.channels?.trim() ? chooseChannels(await services.integrations.listIntegrations(organizationId), args.channels) : undefined;
      return {
        description: prompt.description,
        messages: [{ role: 'user', content: { type: 'text', text: prompt.build(args, chosen) } }],
      };
    });
  };
}
