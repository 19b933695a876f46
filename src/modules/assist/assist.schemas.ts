import { z } from 'zod';

/** What a brief, a post or instructions may hold (a long article is far under this). */
const TEXT_MAX = 100_000;

const httpUrl = z
  .url({ protocol: /^https?$/, error: 'Must be an http or https URL' })
  .max(2000)
  .refine((u) => {
    // zod runs this after a failed URL check too: a string that is no URL is left to that check
    if (!URL.canParse(u)) return true;
    const url = new URL(u);
    return url.username === '' && url.password === '' && url.search === '' && url.hash === '';
  }, 'Must be a base URL without credentials, query or fragment (the key goes in apiKey)');

export const AiSettingsSchema = z
  .object({
    configured: z.boolean().describe('whether writing help is on (a model endpoint is set)'),
    baseUrl: z.string().nullable().describe('the OpenAI-compatible API root, e.g. `https://api.openai.com/v1` or `http://127.0.0.1:11434/v1` (Ollama)'),
    model: z.string().nullable(),
    vision: z.boolean().describe('the model takes images (alt text)'),
    hasApiKey: z.boolean().describe('a key is stored (sealed; never answered)'),
  })
  .meta({ id: 'AiSettings' });
export type AiSettings = z.infer<typeof AiSettingsSchema>;

export const PutAiSettingsBodySchema = z.object({
  baseUrl: httpUrl.describe('the OpenAI-compatible API root (where `/chat/completions` and `/models` are)'),
  model: z.string().trim().min(1, 'Required').max(200).describe('the model name the endpoint knows, e.g. `gpt-4o-mini`, `llama3.1:8b`'),
  apiKey: z
    .string()
    .trim()
    .min(1, 'Required (null removes the key)')
    .max(1000)
    .nullable()
    .optional()
    .describe('sent as `Authorization: Bearer`; omitted: the stored key is kept (only while the address stays the same); null: no key (Ollama)'),
  vision: z.boolean().optional().describe('the model takes images (enables alt text); default false'),
});
export type PutAiSettingsBody = z.infer<typeof PutAiSettingsBodySchema>;

export const SuggestionSchema = z
  .object({
    integrationId: z.string().nullable().describe('the channel this suggestion is for; null: no channel in particular'),
    platform: z.string().nullable().describe("the channel's platform identifier"),
    content: z.string().describe('plain text (a thread: its parts separated by blank lines; hashtags: the tags separated by spaces)'),
    items: z.array(z.string()).optional().describe('a thread: its parts, in order; hashtags: the tags (`#word`)'),
    length: z.number().int().nullable().describe("the length in the platform's counting (a thread: its longest part); null without a limit"),
    maxLength: z.number().int().nullable().describe("the platform's limit (alt text: the writing help's own)"),
    fits: z.boolean().describe('within the limit; a suggestion that does not fit cannot be accepted as it is'),
    note: z.string().optional().describe('why it does not fit, or what else to know'),
  })
  .meta({ id: 'Suggestion' });
export type Suggestion = z.infer<typeof SuggestionSchema>;

export const SuggestionsSchema = z.object({ suggestions: z.array(SuggestionSchema) }).meta({ id: 'Suggestions' });
export type Suggestions = z.infer<typeof SuggestionsSchema>;

const integrationIds = z.array(z.uuid('Must be a channel id')).max(20);
const language = z.string().trim().min(1).max(50).describe('a language name or code, e.g. `German`, `pt-BR`');

export const DraftBodySchema = z.object({
  brief: z.string().trim().min(1, 'Required').max(TEXT_MAX).describe('what the post is about'),
  integrationIds: integrationIds.optional().describe('one suggestion per channel; none: one suggestion for no channel in particular'),
  tone: z.string().trim().min(1).max(200).optional().describe('e.g. `friendly`, `formal`'),
  language: language.optional(),
});
export type DraftBody = z.infer<typeof DraftBodySchema>;

export const RewriteBodySchema = z.object({
  content: z.string().trim().min(1, 'Required').max(TEXT_MAX).describe('the post (plain text or the composer HTML)'),
  integrationIds: integrationIds.min(1, 'At least one channel').describe("one suggestion per channel, in its platform's limits and style"),
  instructions: z.string().trim().min(1).max(2000).optional().describe('e.g. `shorter`, `add a call to action`'),
});
export type RewriteBody = z.infer<typeof RewriteBodySchema>;

export const ThreadBodySchema = z.object({
  content: z.string().trim().min(1, 'Required').max(TEXT_MAX),
  integrationId: z.uuid('Must be a channel id').describe('the channel whose platform publishes threads'),
});
export type ThreadBody = z.infer<typeof ThreadBodySchema>;

export const HashtagsBodySchema = z.object({
  content: z.string().trim().min(1, 'Required').max(TEXT_MAX),
  integrationId: z.uuid('Must be a channel id').optional().describe("hashtags in the custom of this channel's platform"),
  count: z.number().int().min(1).max(30).optional().describe('how many (default 5)'),
});
export type HashtagsBody = z.infer<typeof HashtagsBodySchema>;

export const AltTextBodySchema = z.object({
  mediaId: z.uuid('Must be a media id').describe('an image of the media library'),
  language: language.optional(),
});
export type AltTextBody = z.infer<typeof AltTextBodySchema>;

export const TranslateBodySchema = z.object({
  content: z.string().trim().min(1, 'Required').max(TEXT_MAX),
  language,
  integrationIds: integrationIds.optional().describe("one translation per channel, in its platform's limit; none: one"),
});
export type TranslateBody = z.infer<typeof TranslateBodySchema>;
