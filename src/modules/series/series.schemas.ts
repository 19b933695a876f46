import { z } from 'zod';
import { PostEntrySchema } from '../posts/posts.schemas.js';
import { isKnownZone } from './series-rule.js';

const DAY = /^\d{4}-\d{2}-\d{2}$/;
function realDay(s: string) {
  if (!DAY.test(s)) return false;
  const [y, m, d] = s.split('-').map(Number) as [number, number, number];
  const t = new Date(Date.UTC(y, m - 1, d));
  return y >= 1970 && y <= 9999 && t.getUTCFullYear() === y && t.getUTCMonth() === m - 1 && t.getUTCDate() === d;
}
const DaySchema = z.string().refine(realDay, { message: 'Must be a date YYYY-MM-DD (1970–9999)' });

export const WEEKDAY_CODES = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'] as const;

export const SeriesRuleSchema = z
  .object({
    frequency: z.enum(['daily', 'weekly', 'monthly']),
    interval: z.number().int().min(1).max(365).default(1).describe('every how many days, weeks or months'),
    weekdays: z.array(z.enum(WEEKDAY_CODES)).min(1).max(7).optional().describe('weekly: the days of the week (default: the weekday of startDate)'),
    monthDays: z
      .array(z.number().int().refine((n) => (n >= 1 && n <= 31) || n === -1, { message: 'Must be 1..31, or -1 for the last day' }))
      .min(1)
      .max(31)
      .optional()
      .describe('monthly: the days of the month, -1 the last (default: the day of startDate; a month without that day is skipped)'),
    time: z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'Must be a local time HH:mm (00:00–23:59)').describe('the local time of each occurrence'),
    timeZone: z
      .string()
      .refine((z) => z.length > 0 && isKnownZone(z), { message: 'Must be an IANA time zone, e.g. Europe/Berlin' })
      .describe('IANA time zone of `time` (DST-correct: 09:00 stays 09:00 local)'),
    startDate: DaySchema.describe('the local date of the first possible occurrence'),
    until: DaySchema.optional().describe('the last local date an occurrence may fall on (inclusive)'),
    count: z.number().int().min(1).max(1000).optional().describe('how many occurrences in all'),
  })
  .superRefine((r, ctx) => {
    if (r.weekdays && r.frequency !== 'weekly') ctx.addIssue({ code: 'custom', path: ['weekdays'], message: 'Only with frequency "weekly"' });
    if (r.monthDays && r.frequency !== 'monthly') ctx.addIssue({ code: 'custom', path: ['monthDays'], message: 'Only with frequency "monthly"' });
    if (r.until && realDay(r.until) && realDay(r.startDate) && r.until < r.startDate) ctx.addIssue({ code: 'custom', path: ['until'], message: 'Must not be before startDate' });
  })
  .meta({ id: 'SeriesRule' });

export type SeriesRule = z.infer<typeof SeriesRuleSchema>;

export const CreateSeriesBodySchema = z.object({
  rule: SeriesRuleSchema,
  type: z.enum(['schedule', 'draft']).default('schedule').describe('the state each occurrence is created in'),
  shortLink: z.boolean().default(false),
  tags: z.array(z.looseObject({ value: z.string(), label: z.string() })).max(50).default([]),
  posts: z.array(PostEntrySchema).min(1, 'At least one post').max(50).describe('as in POST /posts (without ids or group: every occurrence is a new post)'),
});
export type CreateSeriesBody = z.infer<typeof CreateSeriesBodySchema>;

export const UpdateSeriesBodySchema = z.object({
  scope: z.literal('following').describe('"this and following": the series ends before `fromPostId`, a new one starts there (edit one occurrence with POST /posts)'),
  fromPostId: z.string().describe('the occurrence (a post of this series) from which the change applies'),
  rule: SeriesRuleSchema.optional().describe('the new rule (default: the old one, starting on the date of that occurrence)'),
  type: z.enum(['schedule', 'draft']).optional(),
  shortLink: z.boolean().optional(),
  tags: z.array(z.looseObject({ value: z.string(), label: z.string() })).max(50).optional(),
  posts: z.array(PostEntrySchema).min(1).max(50).optional().describe('the new body (default: the old one)'),
});

const OccurrencePostsSchema = z.array(z.object({ postId: z.string(), integration: z.string(), group: z.string() }));

export const SeriesSchema = z
  .object({
    id: z.string(),
    rule: SeriesRuleSchema,
    type: z.enum(['schedule', 'draft']),
    template: z.record(z.string(), z.unknown()).describe('the post body each occurrence is made from'),
    horizonDays: z.number().int(),
    materializedThrough: z.iso.datetime().nullable().describe('occurrences up to here exist'),
    nextIndex: z.number().int().describe('the number of the next occurrence to create (0-based)'),
    completed: z.boolean().describe('the rule has no more occurrences to create'),
    broken: z.object({ reason: z.string(), at: z.iso.datetime() }).nullable().describe('why the series stopped creating occurrences'),
    previousSeriesId: z.string().nullable(),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: 'Series' });

export const SeriesDetailSchema = SeriesSchema.extend({
  counts: z.object({ created: z.number().int(), queued: z.number().int(), published: z.number().int(), failed: z.number().int(), drafts: z.number().int() }),
  nextOccurrences: z.array(z.object({ index: z.number().int(), publishDate: z.iso.datetime(), posts: z.array(z.object({ postId: z.string(), integration: z.string(), state: z.string() })) })),
});

export const CreateSeriesResponseSchema = z.object({
  series: SeriesSchema,
  occurrences: z.array(z.object({ index: z.number().int(), publishDate: z.iso.datetime(), posts: OccurrencePostsSchema })),
});

export const SeriesParamsSchema = z.object({ id: z.string() });
export const DeleteSeriesResponseSchema = z.object({ id: z.string(), deleted: z.array(z.string()).describe('ids of the unpublished occurrences removed'), kept: z.number().int().describe('published occurrences left as they are') });
