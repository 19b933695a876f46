import { z } from 'zod';
import { PLATFORM_IDENTIFIERS } from '../../platforms/platform.js';

/** The platform kinds of API.md §9. */
export const PlatformIdentifierSchema = z.enum(PLATFORM_IDENTIFIERS, { error: 'Unknown platform' }).meta({ id: 'PlatformIdentifier' });

export const CustomerRefSchema = z.object({ id: z.string(), name: z.string() });

export const IntegrationSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    identifier: PlatformIdentifierSchema,
    picture: z.string().nullable(),
    disabled: z.boolean(),
    profile: z.string().nullable().describe('username or handle on the platform'),
    customer: CustomerRefSchema.optional().describe('omitted when the channel has no client group'),
    refreshNeeded: z.boolean().describe('the channel must be reconnected before it can publish'),
    sandbox: z.boolean().describe("a sandbox channel: the platform's simulator inside Tidings, never the real platform (set when connected, never changed)"),
    postingTimes: z.array(z.object({ time: z.number().int().describe('minutes after 00:00 UTC') })),
    settings: z.record(z.string(), z.unknown()).describe('saved default settings applied to posts that give none'),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: 'Integration' });

export type Integration = z.infer<typeof IntegrationSchema>;

export const ListIntegrationsQuerySchema = z.object({
  customer: z.string().min(1).optional().describe('client group id'),
  group: z.string().min(1).optional().describe('alias of `customer` (the reference API name)'),
});

export const IsConnectedSchema = z.object({ connected: z.boolean() });

export const IntegrationParamsSchema = z.object({ id: z.string() });

export const PostingTimesSchema = z
  .array(z.object({ time: z.number().int().min(0).max(1439).describe('minutes after 00:00 UTC') }))
  .max(96);

export const UpdateIntegrationBodySchema = z.object({
  name: z.string().trim().min(1, 'Required').max(200).optional(),
  disabled: z.boolean().optional(),
  customer: z.string().min(1).nullable().optional().describe('client group id; null takes the channel out of its group'),
  postingTimes: PostingTimesSchema.optional(),
});

export type UpdateIntegrationBody = z.infer<typeof UpdateIntegrationBodySchema>;

const MediaKindSchema = z.object({
  maxCount: z.number().int(),
  mimeTypes: z.array(z.string()),
  maxBytes: z.number().int().optional(),
  maxDurationSeconds: z.number().optional(),
});

export const IntegrationSettingsSchema = z.object({
  output: z.object({
    rules: z.string(),
    maxLength: z.number().int(),
    counting: z
      .enum(['characters', 'graphemes', 'twitter-weighted', 'bytes', 'mastodon'])
      .describe(
        'Extension: how `maxLength` is counted. characters: UTF-16 code units; graphemes: user-perceived characters; twitter-weighted: twitter-text weighted length (URLs 23, CJK and emoji 2); bytes: UTF-8 bytes; mastodon: graphemes with every URL as 23 and @user@domain as @user',
      ),
    editor: z.enum(['normal', 'markdown', 'html']).describe('Extension: the form the platform takes the text in (HTML from the API is converted to it)'),
    thread: z
      .object({ supported: z.boolean(), kind: z.enum(['reply', 'comment']).optional() })
      .describe('Extension: whether thread items (`value[1..]`) are published, as replies or comments'),
    media: z
      .object({
        minItems: z.number().int(),
        maxItems: z.number().int(),
        mixed: z.boolean(),
        onThreadItems: z.boolean(),
        image: MediaKindSchema.optional(),
        video: MediaKindSchema.optional(),
      })
      .describe('Extension: the attachments a post item may carry'),
    settings: z.union([z.record(z.string(), z.unknown()), z.literal('No additional settings required')]),
    tools: z.array(
      z.object({
        methodName: z.string(),
        description: z.string(),
        dataSchema: z.array(z.object({ key: z.string(), type: z.string(), description: z.string() })),
      }),
    ),
    defaults: z.record(z.string(), z.unknown()).describe('saved default settings of the channel'),
  }),
});

export const SaveIntegrationSettingsBodySchema = z.object({
  settings: z.record(z.string(), z.unknown()),
});

export const FindSlotSchema = z.object({ date: z.iso.datetime() });

export const IntegrationsListSchema = z.array(IntegrationSchema);

export const IdentifierParams = z.object({ identifier: PlatformIdentifierSchema });
export const BeginConnectQuerySchema = z.object({ refresh: z.string().optional(), instanceUrl: z.string().optional() });
export const BeginConnectResponseSchema = z.object({ url: z.string().nullable(), credentials: z.record(z.string(), z.unknown()).optional() });
export const ConnectCredentialsQuerySchema = z.object({ refresh: z.string().optional().describe('id of the channel to reconnect') });
export const ConnectCredentialsBodySchema = z.record(z.string(), z.unknown());

export const TriggerToolBodySchema = z.object({ methodName: z.string().min(1), data: z.record(z.string(), z.unknown()).optional() });
export const ToolOutputSchema = z.object({ output: z.unknown() });
export const SelectAccountBodySchema = z.object({ id: z.string().min(1).describe("the account's id on the platform") });
