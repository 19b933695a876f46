import { z } from 'zod';

export const CustomerRefSchema = z.object({ id: z.string(), name: z.string() });

export const IntegrationSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    identifier: z.string().describe('platform identifier, e.g. `x`, `linkedin-page`'),
    picture: z.string().nullable(),
    disabled: z.boolean(),
    profile: z.string().nullable().describe('username or handle on the platform'),
    customer: CustomerRefSchema.optional().describe('omitted when the channel has no client group'),
    refreshNeeded: z.boolean().describe('the channel must be reconnected before it can publish'),
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
