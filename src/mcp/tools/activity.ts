import type { ActivityService } from '../../modules/activity/activity.service.js';
import { ActivityPageSchema, ActivityQuerySchema } from '../../modules/activity/activity.schemas.js';
import { defineTool } from '../tool.js';

/** The activity log: the tool of `modules/activity/activity.routes.ts`, on the same service method. */
export function activityTools(activity: ActivityService) {
  return [
    defineTool({
      name: 'list_activity',
      title: 'List the activity log',
      route: 'GET /activity',
      description:
        "Who did what in the organisation, and when: posts created, edited, moved, deleted, published or failed; channels connected, disabled or changed; API keys, approved apps, webhooks and members. Each entry names its actor (a person, an API key, an OAuth app, an assistant through MCP, or the system), the action (e.g. post.created) and the target. Newest first; pass `nextCursor` as `cursor` for older entries. Entries are kept at least 90 days and never hold secrets.",
      input: { query: ActivityQuerySchema },
      hints: {
        action: 'e.g. post.created, or post. for every post action',
        from: 'ISO 8601 date-time, e.g. 2026-05-01T00:00:00Z',
        targetId: 'e.g. a post id (from list_posts) with targetKind post',
      },
      output: ActivityPageSchema,
      annotations: { readOnlyHint: true, idempotentHint: true },
      run: (ctx, { query }) => activity.list(ctx.organizationId, query),
      summary: (page) =>
        `${page.entries.length} entr${page.entries.length === 1 ? 'y' : 'ies'}${page.entries.length ? `: ${page.entries.slice(0, 10).map((e) => `${e.at} ${e.actor.name} ${e.action} ${e.target.name ?? e.target.id ?? e.target.kind}`).join('; ')}` : ''}${page.nextCursor ? ' (more: pass nextCursor as cursor)' : ''}`,
    }),
  ];
}
