import type { AssistService } from '../../modules/assist/assist.service.js';
import {
  AiSettingsSchema,
  AltTextBodySchema,
  DraftBodySchema,
  HashtagsBodySchema,
  RewriteBodySchema,
  SuggestionsSchema,
  ThreadBodySchema,
  TranslateBodySchema,
  type Suggestions,
} from '../../modules/assist/assist.schemas.js';
import { defineTool } from '../tool.js';

const ABOUT =
  "Writing help runs on the organisation's own OpenAI-compatible model (set by an owner or admin in Settings → Writing help; without one every writing-help tool fails with AI_NOT_CONFIGURED and nothing is sent anywhere). " +
  "It answers suggestions only: nothing is saved or published; show them to the person, who accepts or edits one (create_posts). Each suggestion is counted in its platform's way; `fits: false` means it is over the limit and must be shortened first.";

const describe = (r: Suggestions) =>
  r.suggestions
    .map((s, i) => `${i + 1}. ${s.platform ?? 'any platform'}${s.length !== null && s.maxLength !== null ? ` (${s.length}/${s.maxLength}${s.fits ? '' : ', does not fit'})` : ''}: ${s.items ? s.items.join(' | ') : s.content}${s.note ? ` [${s.note}]` : ''}`)
    .join('\n');

const SUGGESTS = { readOnlyHint: true, idempotentHint: false, openWorldHint: true } as const;

/** Writing help: the tools of `modules/assist/assist.routes.ts`, on the same service methods (never streamed). */
export function assistTools(assist: AssistService) {
  return [
    defineTool({
      name: 'get_writing_help_settings',
      title: 'Writing help settings',
      route: 'GET /ai/settings',
      description: `Whether the organisation set a model for writing help, which one and whether it takes images (alt text); never the key. ${ABOUT}`,
      input: {},
      output: AiSettingsSchema,
      annotations: { readOnlyHint: true, idempotentHint: true },
      run: (ctx) => assist.getSettings(ctx.organizationId),
      summary: (s) => (s.configured ? `Writing help is on: model ${s.model} at ${s.baseUrl}${s.vision ? ', takes images' : ''}` : 'Writing help is off (no model set)'),
    }),
    defineTool({
      name: 'draft_post',
      title: 'Draft a post from a brief',
      route: 'POST /ai/draft',
      description: `Drafts a post from a brief: one suggestion per channel in its platform's limit and style, or one without channels. ${ABOUT}`,
      input: { body: DraftBodySchema },
      output: SuggestionsSchema,
      annotations: SUGGESTS,
      run: (ctx, { body }) => assist.suggest(ctx.organizationId, 'draft', body, { signal: ctx.signal }),
      summary: describe,
    }),
    defineTool({
      name: 'rewrite_post',
      title: 'Rewrite a post for each channel',
      route: 'POST /ai/rewrite',
      description: `Rewrites a post for each channel, in its platform's limit and style (X short, LinkedIn professional…). ${ABOUT}`,
      input: { body: RewriteBodySchema },
      output: SuggestionsSchema,
      annotations: SUGGESTS,
      run: (ctx, { body }) => assist.suggest(ctx.organizationId, 'rewrite', body, { signal: ctx.signal }),
      summary: describe,
    }),
    defineTool({
      name: 'split_into_thread',
      title: 'Split a text into a thread',
      route: 'POST /ai/thread',
      description: `Splits a long text into a thread for a channel whose platform publishes threads: the suggestion's \`items\` are the parts, each within the platform's limit (create_posts takes them as the post's items). ${ABOUT}`,
      input: { body: ThreadBodySchema },
      hints: { content: 'the long text to split' },
      output: SuggestionsSchema,
      annotations: SUGGESTS,
      run: (ctx, { body }) => assist.suggest(ctx.organizationId, 'thread', body, { signal: ctx.signal }),
      summary: describe,
    }),
    defineTool({
      name: 'suggest_hashtags',
      title: 'Suggest hashtags',
      route: 'POST /ai/hashtags',
      description: `Suggests hashtags for a post (the suggestion's \`items\`), most relevant first. ${ABOUT}`,
      input: { body: HashtagsBodySchema },
      hints: { content: 'the post text' },
      output: SuggestionsSchema,
      annotations: SUGGESTS,
      run: (ctx, { body }) => assist.suggest(ctx.organizationId, 'hashtags', body, { signal: ctx.signal }),
      summary: describe,
    }),
    defineTool({
      name: 'write_alt_text',
      title: 'Write alt text for an image',
      route: 'POST /ai/alt-text',
      description: `Writes alt text for an image of the media library; needs a model that takes images (get_writing_help_settings: vision). ${ABOUT}`,
      input: { body: AltTextBodySchema },
      output: SuggestionsSchema,
      annotations: SUGGESTS,
      run: (ctx, { body }) => assist.suggest(ctx.organizationId, 'alt-text', body, { signal: ctx.signal }),
      summary: describe,
    }),
    defineTool({
      name: 'translate_post',
      title: 'Translate a post',
      route: 'POST /ai/translate',
      description: `Translates a post, per channel within its platform's limit, or once. ${ABOUT}`,
      input: { body: TranslateBodySchema },
      hints: { content: 'the post text' },
      output: SuggestionsSchema,
      annotations: SUGGESTS,
      run: (ctx, { body }) => assist.suggest(ctx.organizationId, 'translate', body, { signal: ctx.signal }),
      summary: describe,
    }),
  ];
}
