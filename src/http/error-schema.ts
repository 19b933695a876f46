import { z } from 'zod';

/** The one error body of API.md §3. */
export const ErrorBodySchema = z
  .object({
    statusCode: z.number().int(),
    error: z.string().describe('HTTP reason phrase'),
    code: z.string().describe('stable machine-readable code, e.g. VALIDATION_FAILED'),
    message: z.string(),
    fields: z
      .array(z.object({ path: z.string(), message: z.string() }))
      .optional()
      .describe('each offending field by path (validation errors)'),
    requestId: z.string(),
  })
  .meta({ id: 'Error' });

export type ErrorBody = z.infer<typeof ErrorBodySchema>;

/** Error statuses every authenticated route can answer with (for the OpenAPI document). */
export const ErrorResponses = {
  400: ErrorBodySchema,
  401: ErrorBodySchema,
  403: ErrorBodySchema,
  404: ErrorBodySchema,
  429: ErrorBodySchema,
} as const;
