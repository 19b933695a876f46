import { z } from 'zod';
import { pageSchema } from '../../lib/pagination.js';
import { MediaItemSchema } from '../media/media.schemas.js';
import { VIDEO_OUTPUTS } from '../../core/video-providers/provider.js';

export const GenerateVideoBodySchema = z.object({
  type: z.string().min(1).max(100).describe('the video provider (`GET /video/providers`): `slides` is built in'),
  output: z.enum(VIDEO_OUTPUTS as [string, ...string[]]).describe('`vertical` 1080×1920 or `horizontal` 1920×1080'),
  customParams: z.record(z.string(), z.unknown()).default({}).describe("the provider's parameters: its JSON Schema is in `GET /video/providers`"),
});
export type GenerateVideoBody = z.infer<typeof GenerateVideoBodySchema>;

export const VideoFunctionBodySchema = z.object({
  identifier: z.string().min(1).max(100).describe('the video provider'),
  functionName: z.string().min(1).max(100).describe('a function the provider lists in `GET /video/providers`'),
  params: z.unknown().optional().describe("the function's parameters (its JSON Schema is in `GET /video/providers`)"),
});
export type VideoFunctionBody = z.infer<typeof VideoFunctionBodySchema>;

/** What a provider's function answers: its own shape, described with the function in `GET /video/providers`. */
export const VideoFunctionResultSchema = z.unknown();

const JsonSchemaObject = z.record(z.string(), z.unknown());

export const VideoProvidersSchema = z
  .object({
    providers: z.array(
      z.object({
        identifier: z.string(),
        name: z.string(),
        description: z.string(),
        runsOn: z.enum(['local', 'remote']).describe('`local`: encoded by this deployment; `remote`: made by an outside service'),
        outputs: z.array(z.object({ output: z.string(), width: z.number().int(), height: z.number().int() })),
        creditCost: z.number().int().describe('plan video credits one generation takes'),
        customParams: JsonSchemaObject.describe('JSON Schema of `customParams`'),
        functions: z.array(z.object({ name: z.string(), description: z.string(), params: JsonSchemaObject })),
      }),
    ),
  })
  .meta({ id: 'VideoProviders' });

export const VideoJobSchema = z
  .object({
    id: z.string(),
    type: z.string(),
    output: z.string(),
    status: z.enum(['queued', 'running', 'succeeded', 'failed']),
    progress: z.number().describe('0 to 1'),
    stage: z.string().nullable(),
    attempts: z.number().int(),
    credits: z.number().int(),
    creditState: z.enum(['reserved', 'spent', 'refunded']),
    error: z.string().nullable(),
    media: MediaItemSchema.nullable().describe('the video, once succeeded (null if deleted since)'),
    createdAt: z.string(),
    startedAt: z.string().nullable(),
    finishedAt: z.string().nullable(),
  })
  .meta({ id: 'VideoJob' });
export type VideoJob = z.infer<typeof VideoJobSchema>;

export const VideoJobPageSchema = pageSchema('jobs', VideoJobSchema);
export const VideoJobParamsSchema = z.object({ id: z.string() });

export const VideoCreditsSchema = z
  .object({
    period: z.string().describe('the UTC month the figures are for, `YYYY-MM`'),
    plan: z.string(),
    allowance: z.number().int().nullable().describe("the plan's monthly credits; null = unlimited"),
    granted: z.number().int().describe('extra credits given for this month'),
    used: z.number().int().describe('spent on finished videos'),
    reserved: z.number().int().describe('held by generations not finished yet'),
    remaining: z.number().int().nullable().describe('null = unlimited'),
    resetsAt: z.string().describe('when the next month starts (UTC)'),
  })
  .meta({ id: 'VideoCredits' });
export type VideoCredits = z.infer<typeof VideoCreditsSchema>;
