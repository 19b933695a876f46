import { z } from 'zod';
import { InstantSchema } from '../posts/posts.schemas.js';

export const ProblemSchema = z.object({
  row: z.number().int().nullable().describe('1-based data row (the CSV header line is not counted; JSON: the index in the array + 1); null for the whole file'),
  column: z.string().nullable().describe('the column (`channel`, `date`, `timezone`, `text`, `media`, `settings`, `type`, `position`, `delay`, `tags`)'),
  message: z.string(),
});

export const ImportQuerySchema = z.object({
  dryRun: z
    .enum(['true', 'false'])
    .optional()
    .transform((v) => v === 'true')
    .describe('true: check only, answer row by row what would be created and every problem; nothing is created'),
  format: z.enum(['csv', 'json']).optional().describe('the file format of a multipart upload (default: from the part\'s content type or file name, else CSV)'),
});

export const DryRunResponseSchema = z.object({
  dryRun: z.literal(true),
  valid: z.boolean().describe('no problems: importing the file would create every row'),
  rows: z.array(
    z.object({
      row: z.number().int(),
      group: z.string(),
      channel: z.object({ id: z.string(), name: z.string(), identifier: z.string() }).nullable(),
      date: z.string().nullable().describe('the publish date in UTC'),
      type: z.enum(['schedule', 'draft']),
      position: z.number().int(),
      text: z.string().describe('the first 80 characters'),
    }),
  ),
  problems: z.array(ProblemSchema),
});

export const ImportDoneSchema = z.object({
  id: z.string(),
  status: z.literal('completed'),
  rows: z.number().int(),
  created: z.object({ groups: z.number().int(), posts: z.number().int() }),
});

export const ImportJobSchema = z.object({
  id: z.string(),
  status: z.enum(['pending', 'running', 'completed', 'failed']),
  format: z.enum(['csv', 'json']),
  progress: z.object({ done: z.number().int(), total: z.number().int() }),
  created: z.object({ groups: z.number().int(), posts: z.number().int() }),
  problems: z.array(ProblemSchema),
  createdAt: z.string(),
  completedAt: z.string().nullable(),
});

export const ImportParamsSchema = z.object({ id: z.string() });

export const ExportQuerySchema = z.object({
  startDate: InstantSchema.describe('start of the window (posts whose publish date is in it), ISO 8601'),
  endDate: InstantSchema.describe('end of the window, ISO 8601'),
  format: z.enum(['csv', 'json']).default('csv').describe('csv (default) or json (an array of row objects)'),
  customer: z.string().optional().describe("only this customer's channels"),
});
