import { z } from 'zod';
import { EVENT_TYPES, type EventType } from '../events/events.js';

/**
 * The payload of every event type a webhook receives (API.md §5/§7), as zod schemas, and the
 * OpenAPI 3.1 `webhooks` section generated from them, so integrators see (and generate types
 * for) what arrives. The shapes follow what the emitters write: `postEventPayload` in
 * `core/events/events.ts`, the publisher (`post.published`, `post.failed`,
 * `integration.refresh_needed`) and the integrations repository (`integration.disconnected`).
 */

const ChannelRefSchema = z
  .object({
    id: z.string().describe('the channel (integration) id'),
    identifier: z.string().optional().describe('the platform, e.g. `bluesky`; absent only when the channel row was gone when the event was written'),
    name: z.string().optional().describe('the channel name'),
    sandbox: z.literal(true).optional().describe('present (true) on the events of sandbox channels only'),
  })
  .describe('the channel the event is about');

const ChannelSchema = z
  .object({
    id: z.string(),
    identifier: z.string().describe('the platform, e.g. `bluesky`'),
    name: z.string(),
    sandbox: z.literal(true).optional().describe('present (true) on the events of sandbox channels only'),
  })
  .describe('the channel the event is about');

const PostPartSchema = z.object({
  postId: z.string().describe('the post (one item of a thread)'),
  rootPostId: z.string().describe('the first item of its thread (the post itself when it is the first); events of one root post are delivered in order'),
  group: z.string().describe('the group shared by the posts created in one request'),
  position: z.number().int().describe('0 for the first item of a thread, 1 for the next, …'),
  integration: ChannelRefSchema,
});

const ApprovalRuleRefSchema = z
  .object({ id: z.string(), name: z.string() })
  .nullable()
  .describe('the approval rule that asked for approval, or null (asked by hand, or by the contributor role)');

const VideoJobRefSchema = z
  .object({ id: z.string().describe('the job (`GET /video/jobs/{id}`)'), type: z.string().describe('the video provider'), output: z.string().describe('`vertical` or `horizontal`') })
  .describe('the video generation the event is about');

const isoDate = (what: string) => z.string().describe(`${what} (ISO 8601)`);

/** `data` of each event type. */
export const EVENT_PAYLOAD_SCHEMAS = {
  'post.scheduled': PostPartSchema.extend({
    publishDate: isoDate('the date the post was given'),
    dueAt: isoDate('when it will publish: its date, or now when that date has passed'),
  }),
  'post.published': PostPartSchema.extend({
    releaseId: z.string().describe("the post's id on the platform"),
    releaseURL: z.string().nullable().describe("the post's URL on the platform; null when not known yet (an inbox upload)"),
    publishedAt: isoDate('when it was published'),
  }),
  'post.failed': PostPartSchema.extend({
    error: z.string().describe('why it failed'),
    failedAt: isoDate('when it failed'),
  }),
  'post.deleted': PostPartSchema.extend({ deletedAt: isoDate('when it was deleted') }),
  'post.overdue': PostPartSchema.extend({
    publishDate: isoDate('the time it was scheduled for'),
    overdueSeconds: z.number().int().describe('how late it was when the watchdog found it, in seconds'),
    attempts: z.number().int().describe('publish attempts made so far'),
    error: z.string().nullable().describe('the last retry note (why the last attempt did not publish), or null'),
    detectedAt: isoDate('when the watchdog found it'),
  }),
  'post.approval_requested': PostPartSchema.extend({
    publishDate: isoDate('the date the post is meant for'),
    rule: ApprovalRuleRefSchema,
    requestedBy: z.string().describe('who asked (a person, key, app or the service), as the activity log names them'),
    comment: z.string().nullable().describe('what they wrote with it, or null'),
  }),
  'post.approved': PostPartSchema.extend({
    publishDate: isoDate('the date it is queued for'),
    rule: ApprovalRuleRefSchema,
    approvedBy: z.string().describe('who approved it (a member, an exempt key, or a client through a preview link: their name and "(preview link)")'),
    comment: z.string().nullable().describe('what they wrote with it, or null'),
  }),
  'post.changes_requested': PostPartSchema.extend({
    publishDate: isoDate('the date the post is meant for'),
    rule: ApprovalRuleRefSchema,
    requestedBy: z.string().describe('who asked for changes'),
    comment: z.string().describe('what should change'),
  }),
  'post.approval_expired': PostPartSchema.extend({
    publishDate: isoDate('the time it was meant for'),
    status: z.enum(['pending_approval', 'changes_requested']).describe('where it stood'),
    detectedAt: isoDate('when the service found it'),
  }),
  'integration.connected': z.object({
    integration: ChannelSchema,
    reconnected: z.boolean().describe('true when an existing channel was connected again (new credentials), false for a new channel'),
    connectedAt: isoDate('when it was connected'),
  }),
  'integration.refresh_needed': z.object({
    integration: ChannelSchema,
    reason: z.string().describe('why the channel must be reconnected'),
  }),
  'integration.disconnected': z.object({ integration: ChannelSchema, disconnectedAt: isoDate('when it was disconnected') }),
  'video.succeeded': z.object({
    job: VideoJobRefSchema,
    media: z
      .object({ id: z.string(), path: z.string(), duration: z.number().nullable().describe('seconds'), width: z.number().int().nullable(), height: z.number().int().nullable() })
      .describe('the video, a media item of the organisation'),
    credits: z.number().int().describe('plan video credits spent'),
    completedAt: isoDate('when it was stored'),
  }),
  'video.failed': z.object({
    job: VideoJobRefSchema,
    error: z.string().describe('why it failed'),
    credits: z.number().int().describe('plan video credits given back'),
    failedAt: isoDate('when it failed'),
  }),
  'series.created': z.object({
    series: z
      .object({
        id: z.string().describe('the series (`GET /series/{id}`)'),
        frequency: z.string().describe('`daily`, `weekly` or `monthly`'),
        interval: z.number().int().describe('every how many days, weeks or months'),
        time: z.string().describe('the local time of each occurrence, HH:mm'),
        timeZone: z.string().describe('the IANA time zone of that time'),
      })
      .describe('the repeating post'),
    occurrences: z.number().int().describe('occurrences created with it (more are created ahead as time goes on)'),
    createdAt: isoDate('when it was created'),
  }),
  'feed.item_posted': z.object({
    feed: z.object({ id: z.string().describe('the feed (`GET /feeds/{id}`)'), url: z.string() }).describe('the feed the item came from'),
    item: z.object({ key: z.string().describe("the item's guid, or its link when it has none"), title: z.string().nullable(), link: z.string().nullable() }).describe('the feed item'),
    group: z.string().describe('the group of the posts made from it'),
    posts: z.array(z.object({ postId: z.string(), integration: ChannelRefSchema })).describe('one post per channel'),
    mode: z.string().describe('`now`, `slot` (the next free posting time) or `draft`'),
    postedAt: isoDate('when the posts were created'),
  }),
  'import.completed': z.object({
    import: z.object({ id: z.string().describe('the import (`GET /imports/{id}`)'), format: z.string().describe('`csv` or `json`'), rows: z.number().int() }).describe('the import'),
    created: z.object({ groups: z.number().int(), posts: z.number().int() }).describe('what it created'),
    completedAt: isoDate('when it finished'),
  }),
  'webhook.disabled': z.object({
    webhook: z.object({ id: z.string(), name: z.string(), url: z.string() }).describe('the webhook that was disabled'),
    reason: z.string().describe('why the service disabled it (the receiver answered 410 Gone, or deliveries failed for 24 h)'),
  }),
  'webhook.test': z.object({
    webhook: z.object({ id: z.string(), name: z.string() }).describe('the webhook the test was sent to'),
    message: z.string().describe('always "This is a test event from Tidings"'),
  }),
} satisfies Record<EventType, z.ZodType>;

const DESCRIPTIONS: Record<EventType, string> = {
  'post.scheduled': 'A post was put on the queue (created, scheduled from a draft or a failure, or moved) to publish at `dueAt`.',
  'post.published': 'A post (or a thread item) was published on its platform.',
  'post.failed': 'A post (or a thread item) failed and will not be retried.',
  'post.deleted': 'A post was deleted.',
  'post.overdue': 'A post is still not published `PUBLISH_OVERDUE_SECONDS` (default 300) after its scheduled time (the publisher is down, backed up or retrying). Sent once per scheduled time; `post.published` or `post.failed` follows when it ends.',
  'post.approval_requested': 'A post was submitted for approval (by hand, by the contributor role, or because an approval rule holds it); it is not queued until approved. One event per channel post.',
  'post.approved': 'A post awaiting approval was approved and is queued for its time (`post.scheduled` follows).',
  'post.changes_requested': 'An approver (or a client through a preview link) asked for changes to a post awaiting approval.',
  'post.approval_expired': 'A post was still awaiting approval when its time came: it was not published. Sent once per date; approve it with a new date to publish it.',
  'integration.connected': 'A channel was connected (or reconnected).',
  'integration.refresh_needed': "A channel's access is gone: reconnect it.",
  'integration.disconnected': 'A channel was disconnected; its queued posts failed.',
  'video.succeeded': 'A generated video is ready in the media library (`POST /generate-video`).',
  'video.failed': 'A video generation failed for good; its credits were given back.',
  'series.created': 'A repeating post (a series) was created, with its first occurrences (`POST /series`, or `inter` on `POST /posts`).',
  'feed.item_posted': 'A new item of an RSS, Atom or JSON feed was posted (or made a draft) on the feed\'s channels.',
  'import.completed': 'A bulk import (`POST /imports`) finished and created its posts.',
  'webhook.disabled': 'The service disabled this webhook. Sent to that webhook only.',
  'webhook.test': 'Sent by `POST /webhooks/{id}/test`, to that webhook only.',
};

/** The body of every delivery: the envelope with the event's payload in `data`. */
export function eventEnvelopeSchema<T extends EventType>(type: T) {
  return z.object({
    id: z.string().describe("the event's id; the same in every delivery and retry of this event (the `webhook-id` header identifies the delivery)"),
    type: z.literal(type),
    timestamp: isoDate('when the event happened'),
    data: EVENT_PAYLOAD_SCHEMAS[type],
  });
}

function toJsonSchema(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'output' }) as Record<string, unknown>;
  return rest;
}

/** The OpenAPI 3.1 `webhooks` object: one operation per event type, its body the signed envelope. */
export function openApiWebhooks() {
  return Object.fromEntries(
    EVENT_TYPES.map((type) => [
      type,
      {
        post: {
          summary: type,
          description: `${DESCRIPTIONS[type]} Signed as Standard Webhooks (\`webhook-id\`, \`webhook-timestamp\`, \`webhook-signature\` headers; verify with the webhook's secret).`,
          tags: ['Webhooks'],
          requestBody: { required: true, content: { 'application/json': { schema: toJsonSchema(eventEnvelopeSchema(type)) } } },
          responses: { '200': { description: 'Any 2xx status acknowledges the delivery; anything else (or no answer within the timeout) is retried.' } },
        },
      },
    ]),
  );
}
