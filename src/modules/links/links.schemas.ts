import { z } from 'zod';
import { SHORT_LINK_PROVIDERS } from '../../db/schema/index.js';

const nullableText = (max: number) => z.string().trim().min(1).max(max).nullable().optional();

export const ShortLinkSettingsBodySchema = z
  .object({
    provider: z.enum(SHORT_LINK_PROVIDERS).describe('who shortens the links: the service itself (`builtin`), Dub, Short.io or Kutt'),
    apiKey: nullableText(500).describe("the provider's API key (left out: the stored one is kept for the same provider; never answered back)"),
    domain: z
      .string()
      .trim()
      .max(253)
      .regex(/^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i, 'must be a domain name such as go.example.com')
      .nullable()
      .optional()
      .describe('the short domain to make links on (Short.io needs one; Dub and Kutt use their default when left out)'),
    apiUrl: z.url({ protocol: /^https?$/ }).max(500).nullable().optional().describe("the provider's API address (Kutt is self-hosted: where yours runs)"),
    utmTemplate: nullableText(1000).describe('query parameters added to every link, with placeholders {platform} {channel} {group} {post} {date}, e.g. `utm_source={platform}&utm_medium=social&utm_campaign={group}` (null: none)'),
  })
  .strict();
export type ShortLinkSettingsBody = z.infer<typeof ShortLinkSettingsBodySchema>;

export const ShortLinkSettingsSchema = z
  .object({
    provider: z.enum(SHORT_LINK_PROVIDERS),
    domain: z.string().nullable(),
    apiUrl: z.string().nullable(),
    utmTemplate: z.string().nullable(),
    hasApiKey: z.boolean(),
    builtinBaseUrl: z.string().describe('where the built-in short links live (`<this>/<code>`)'),
    shortLinkLength: z.number().int().describe('how many characters a short link takes at most (text lengths are checked with it before the links exist)'),
    providers: z.array(z.object({ id: z.enum(SHORT_LINK_PROVIDERS), name: z.string(), needsApiKey: z.boolean(), needsDomain: z.boolean(), needsApiUrl: z.boolean() })),
  })
  .meta({ id: 'ShortLinkSettings' });
export type ShortLinkSettingsOut = z.infer<typeof ShortLinkSettingsSchema>;

export const PostLinksParamsSchema = z.object({ id: z.string() });

export const PostLinksSchema = z
  .object({
    links: z.array(
      z.object({
        id: z.string(),
        postId: z.string().describe('the post row (one channel, one thread item) the link was made for'),
        provider: z.enum(SHORT_LINK_PROVIDERS),
        shortUrl: z.string(),
        originalUrl: z.string().describe('the URL as written in the post'),
        targetUrl: z.string().describe('where the short link leads (with the UTM parameters)'),
        clicks: z.number().int().describe('clicks by people'),
        botClicks: z.number().int().describe('fetches by crawlers and link previews (built-in links only)'),
        createdAt: z.string(),
      }),
    ),
  })
  .meta({ id: 'PostLinks' });
export type PostLinks = z.infer<typeof PostLinksSchema>;
