import { z } from 'zod';

const fields = {
  name: z.string().trim().min(1, 'Required').max(100),
  integrations: z.array(z.string().max(100)).max(1000).describe("channel ids the queue fills; empty or absent = every channel of the organisation"),
  order: z.enum(['sequence', 'shuffle']).describe('`sequence`: items in turn by position (round robin); `shuffle`: a random eligible item for each slot'),
  minGapDays: z.number().int().min(0).max(3650).describe('an item is not posted again on a channel within this many days (its variations count as the same item)'),
  horizonDays: z.number().int().min(1).max(90).describe('how far ahead free slots are filled'),
  enabled: z.boolean(),
};

export const CreateQueueBodySchema = z.object({
  name: fields.name,
  integrations: fields.integrations.optional(),
  order: fields.order.default('sequence').describe('default `sequence`'),
  minGapDays: fields.minGapDays.default(30).describe('default 30'),
  horizonDays: fields.horizonDays.default(7).describe('default 7'),
  enabled: fields.enabled.default(true).describe('default true'),
});
export type CreateQueueBody = z.infer<typeof CreateQueueBodySchema>;

export const UpdateQueueBodySchema = z.object({
  name: fields.name.optional(),
  integrations: fields.integrations.optional(),
  order: fields.order.optional(),
  minGapDays: fields.minGapDays.optional(),
  horizonDays: fields.horizonDays.optional(),
  enabled: fields.enabled.optional(),
});
export type UpdateQueueBody = z.infer<typeof UpdateQueueBodySchema>;

const ChannelStateSchema = z.object({
  integrationId: z.string(),
  consecutiveFailures: z.number().int(),
  paused: z.boolean(),
  pausedAt: z.iso.datetime().nullable(),
  pausedReason: z.string().nullable(),
});

export const QueueSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    integrations: z.array(z.string()).describe('channel ids; empty = all'),
    order: z.enum(['sequence', 'shuffle']),
    minGapDays: z.number().int(),
    horizonDays: z.number().int(),
    enabled: z.boolean(),
    channels: z.array(ChannelStateSchema).describe('channels with a failure count or a pause in this queue'),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: 'EvergreenQueue' });

export const QueueListSchema = z.array(QueueSchema);
export const DeletedQueueSchema = z.object({ id: z.string(), deleted: z.literal(true) });

const itemFields = {
  content: z.string().trim().min(1, 'Required').max(100_000),
  variations: z.array(z.string().trim().min(1, 'Required').max(100_000)).max(50).describe('other wordings of the same post, used in turn after `content`'),
  media: z.array(z.string().min(1)).max(50).describe('media ids from the library'),
  settings: z.record(z.string(), z.record(z.string(), z.unknown())).describe("settings per platform identifier (e.g. `{ \"x\": { … } }`); absent: the channel's saved defaults"),
};

export const CreateItemBodySchema = z.object({
  content: itemFields.content,
  variations: itemFields.variations.default([]),
  media: itemFields.media.default([]),
  settings: itemFields.settings.default({}),
});
export type CreateItemBody = z.infer<typeof CreateItemBodySchema>;

export const UpdateItemBodySchema = z.object({
  content: itemFields.content.optional(),
  variations: itemFields.variations.optional(),
  media: itemFields.media.optional(),
  settings: itemFields.settings.optional(),
  position: z.number().int().min(0).max(1_000_000).optional(),
});
export type UpdateItemBody = z.infer<typeof UpdateItemBodySchema>;

export const ItemSchema = z
  .object({
    id: z.string(),
    position: z.number().int(),
    content: z.string(),
    variations: z.array(z.string()),
    media: z.array(z.string()),
    settings: z.record(z.string(), z.record(z.string(), z.unknown())),
    createdAt: z.iso.datetime(),
  })
  .meta({ id: 'EvergreenItem' });
export const ItemListSchema = z.array(ItemSchema);
export const DeletedItemSchema = z.object({ id: z.string(), deleted: z.literal(true) });

export const QueueParamsSchema = z.object({ id: z.string() });
export const ItemParamsSchema = z.object({ id: z.string(), itemId: z.string() });
export const ChannelParamsSchema = z.object({ id: z.string(), integrationId: z.string() });

const FillSchema = z.object({
  integrationId: z.string(),
  at: z.iso.datetime(),
  itemId: z.string(),
  variation: z.number().int().describe('0 = the item\'s content, N = its variation N'),
  postId: z.string(),
});

export const FillResultSchema = z.object({
  created: z.array(FillSchema).describe('posts created by this fill'),
  empty: z.array(z.object({ integrationId: z.string(), at: z.iso.datetime() })).describe('free slots left empty: no item was eligible (all used within the gap)'),
});

export const PlanQuerySchema = z.object({ days: z.coerce.number().int().min(1).max(90).default(7).describe('how many days ahead (default 7)') });

export const PlanSchema = z.object({
  slots: z.array(
    z.object({
      integrationId: z.string(),
      at: z.iso.datetime(),
      itemId: z.string().nullable().describe('null: the slot would stay empty (no item eligible)'),
      variation: z.number().int().nullable(),
      content: z.string().nullable(),
    }),
  ),
});
