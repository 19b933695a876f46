import { z } from 'zod';
import type { SeriesService } from '../../modules/series/series.service.js';
import {
  CreateSeriesBodySchema,
  CreateSeriesResponseSchema,
  DeleteSeriesResponseSchema,
  SeriesDetailSchema,
  SeriesParamsSchema,
  SeriesSchema,
  UpdateSeriesBodySchema,
} from '../../modules/series/series.schemas.js';
import { defineTool } from '../tool.js';

const SERIES_ID = 'the series id (from list_series or create_series)';
const BODY_HINTS = {
  rule: 'when it repeats: { frequency: daily|weekly|monthly, interval, weekdays? ["MO",…] (weekly), monthDays? [1..31 or -1] (monthly), time "HH:mm", timeZone (IANA, e.g. Europe/Berlin), startDate "YYYY-MM-DD", until? "YYYY-MM-DD", count? }',
  type: '"schedule" (occurrences are queued) or "draft"',
  shortLink: 'leave out (false)',
  tags: 'labels for the calendar, each { value, label }',
};
const ABOUT =
  'A series is a repeating post: a rule (daily / weekly / monthly every `interval`, optional weekdays or month days, a local `time` in an IANA `timeZone`, from `startDate`, until a date or for a `count`) and a post body as for create_posts. ' +
  'Each occurrence is a real post (its own id and state) created ahead for 30 days; 09:00 Europe/Berlin stays 09:00 local across daylight-saving changes.';

/** Repeating posts: the tools of `modules/series/series.routes.ts`, on the same service methods. */
export function seriesTools(series: SeriesService) {
  return [
    defineTool({
      name: 'create_series',
      title: 'Create a repeating post',
      route: 'POST /series',
      description: `${ABOUT} Answers the series and its first occurrences (their post ids).`,
      input: { body: CreateSeriesBodySchema },
      hints: BODY_HINTS,
      output: CreateSeriesResponseSchema,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
      run: (ctx, { body }) => series.createSeries(ctx.organizationId, body),
      summary: (r) => `Created series ${r.series.id} with ${r.occurrences.length} occurrence(s)${r.occurrences[0] ? `, the first at ${r.occurrences[0].publishDate}` : ''}`,
    }),
    defineTool({
      name: 'list_series',
      title: 'List repeating posts',
      route: 'GET /series',
      description: `The organisation's series, newest first. ${ABOUT}`,
      input: {},
      output: z.array(SeriesSchema),
      outputKey: 'series',
      annotations: { readOnlyHint: true, idempotentHint: true },
      run: async (ctx) => (await series.listSeries(ctx.organizationId)).series,
      summary: (list) => `${list.length} series`,
    }),
    defineTool({
      name: 'get_series',
      title: 'Get one repeating post',
      route: 'GET /series/:id',
      description: `One series with its rule, counts of its occurrences by state, its next occurrences, and why it stopped when \`broken\`. ${ABOUT}`,
      input: { params: SeriesParamsSchema },
      rename: { 'params.id': 'seriesId' },
      hints: { seriesId: SERIES_ID },
      output: SeriesDetailSchema,
      annotations: { readOnlyHint: true, idempotentHint: true },
      run: (ctx, { params }) => series.getSeries(ctx.organizationId, params.id),
      summary: (s) => `Series ${s.id}: ${s.counts.created} occurrence(s) created, ${s.counts.published} published${s.broken ? `; stopped: ${s.broken.reason}` : ''}`,
    }),
    defineTool({
      name: 'update_series_following',
      title: 'Change this and the following occurrences',
      route: 'PATCH /series/:id',
      description:
        `"This and following": the series ends before the occurrence \`fromPostId\` (its unpublished occurrences from there are deleted) and a new series starts there with the new rule and/or body. To change one occurrence only, edit its post (create_posts with its group and ids). ${ABOUT}`,
      input: { params: SeriesParamsSchema, body: UpdateSeriesBodySchema },
      rename: { 'params.id': 'seriesId' },
      hints: { seriesId: SERIES_ID, ...BODY_HINTS, rule: `the new rule (default: the old one from that occurrence's date); ${BODY_HINTS.rule}` },
      output: CreateSeriesResponseSchema.extend({ endedSeriesId: z.string(), deleted: z.array(z.string()) }),
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
      run: (ctx, { params, body }) => series.updateFollowing(ctx.organizationId, params.id, body),
      summary: (r) => `Series ${r.endedSeriesId} ends; new series ${r.series.id} with ${r.occurrences.length} occurrence(s); ${r.deleted.length} unpublished occurrence(s) removed`,
    }),
    defineTool({
      name: 'delete_series',
      title: 'Delete a repeating post',
      route: 'DELETE /series/:id',
      description: 'Deletes the series and its unpublished occurrences; published occurrences stay, with their history (nothing is deleted on the platforms).',
      input: { params: SeriesParamsSchema },
      rename: { 'params.id': 'seriesId' },
      hints: { seriesId: SERIES_ID },
      output: DeleteSeriesResponseSchema,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
      run: (ctx, { params }) => series.deleteSeries(ctx.organizationId, params.id),
      summary: (r) => `Deleted series ${r.id}: ${r.deleted.length} unpublished occurrence(s) removed, ${r.kept} kept`,
    }),
  ];
}
