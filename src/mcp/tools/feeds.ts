import type { FeedsService } from '../../modules/feeds/feeds.service.js';
import { CreateFeedBodySchema, DeletedFeedSchema, FeedItemListSchema, FeedItemsQuerySchema, FeedListSchema, FeedParamsSchema, FeedSchema, UpdateFeedBodySchema } from '../../modules/feeds/feeds.schemas.js';
import { defineTool } from '../tool.js';

const FEED_ID = 'the feed id (from list_feeds or create_feed)';
const ABOUT =
  'A feed (RSS, Atom or JSON Feed) posts each new item once on its channels with a template ({title}, {link}, {summary}, {author}, {hashtags}); mode `now`, `slot` (next free posting time) or `draft`. ' +
  'Failed polls are retried with backoff; `status` is `failing` after 5 in a row.';

function describeFeed(f: { id: string; url: string; title: string | null; mode: string; status: string; lastError: string | null }): string {
  return `${f.title ?? f.url} (id ${f.id}, ${f.mode}, ${f.status}${f.lastError && f.status === 'failing' ? `: ${f.lastError}` : ''})`;
}

/** Feeds: the tools of `modules/feeds/feeds.routes.ts`, on the same service methods. */
export function feedTools(feeds: FeedsService) {
  return [
    defineTool({
      name: 'list_feeds',
      title: 'List feeds',
      route: 'GET /feeds',
      description: `The organisation's autoposted feeds with their status, last error and next poll. ${ABOUT}`,
      input: {},
      output: FeedListSchema,
      outputKey: 'feeds',
      annotations: { readOnlyHint: true, idempotentHint: true },
      run: (ctx) => feeds.listFeeds(ctx.organizationId),
      summary: ({ feeds: list }) => `${list.length} feed(s): ${list.map(describeFeed).join("; ") || "none"}`,
    }),
    defineTool({
      name: 'get_feed',
      title: 'Get one feed',
      route: 'GET /feeds/:id',
      description: `One feed with its status, last error and next poll. ${ABOUT}`,
      input: { params: FeedParamsSchema },
      rename: { 'params.id': 'feedId' },
      hints: { feedId: FEED_ID },
      output: FeedSchema,
      annotations: { readOnlyHint: true, idempotentHint: true },
      run: (ctx, { params }) => feeds.getFeed(ctx.organizationId, params.id),
      summary: describeFeed,
    }),
    defineTool({
      name: 'list_feed_items',
      title: 'List a feed\'s recent items',
      route: 'GET /feeds/:id/items',
      description: `The feed's recent items, newest first, each with its outcome (posted, draft, skipped, failed) and the posts made from it. ${ABOUT}`,
      input: { params: FeedParamsSchema, query: FeedItemsQuerySchema },
      rename: { 'params.id': 'feedId' },
      hints: { feedId: FEED_ID },
      output: FeedItemListSchema,
      outputKey: 'items',
      annotations: { readOnlyHint: true, idempotentHint: true },
      run: (ctx, { params, query }) => feeds.listItems(ctx.organizationId, params.id, query.limit),
      summary: ({ items }) => `${items.length} item(s): ${items.map((i) => `${i.title ?? i.key} (${i.outcome})`).join('; ') || 'none'}`,
    }),
    defineTool({
      name: 'create_feed',
      title: 'Autopost a feed',
      route: 'POST /feeds',
      description: `Adds a feed to channels (ids from list_channels). The feed is fetched once to check it; its current items are not posted unless \`backfill\` asks for the newest N. ${ABOUT}`,
      input: { body: CreateFeedBodySchema },
      output: FeedSchema,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
      run: (ctx, { body }) => feeds.createFeed(ctx.organizationId, body),
      summary: (f) => `Added feed ${describeFeed(f)}`,
    }),
    defineTool({
      name: 'update_feed',
      title: 'Change a feed',
      route: 'PATCH /feeds/:id',
      description: `Changes a feed's channels, template, mode or poll interval (fields given only). ${ABOUT}`,
      input: { params: FeedParamsSchema, body: UpdateFeedBodySchema },
      rename: { 'params.id': 'feedId' },
      hints: { feedId: FEED_ID },
      output: FeedSchema,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
      run: (ctx, { params, body }) => feeds.updateFeed(ctx.organizationId, params.id, body),
      summary: (f) => `Changed feed ${describeFeed(f)}`,
    }),
    defineTool({
      name: 'delete_feed',
      title: 'Stop autoposting a feed',
      route: 'DELETE /feeds/:id',
      description: 'Stops autoposting the feed; the posts it made stay.',
      input: { params: FeedParamsSchema },
      rename: { 'params.id': 'feedId' },
      hints: { feedId: FEED_ID },
      output: DeletedFeedSchema,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
      run: (ctx, { params }) => feeds.deleteFeed(ctx.organizationId, params.id),
      summary: (d) => `Deleted feed ${d.id}`,
    }),
    defineTool({
      name: 'poll_feed',
      title: 'Poll a feed now',
      route: 'POST /feeds/:id/poll',
      description: `Polls the feed now; new items are posted. A failure is recorded on the feed (lastError), not an error. ${ABOUT}`,
      input: { params: FeedParamsSchema },
      rename: { 'params.id': 'feedId' },
      hints: { feedId: FEED_ID },
      output: FeedSchema,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
      run: (ctx, { params }) => feeds.pollNow(ctx.organizationId, params.id),
      summary: (f) => `Polled feed ${describeFeed(f)}`,
    }),
  ];
}
