import type { SubscribableEventType } from './types.js';

/**
 * The event types a webhook may subscribe to, as the API's enum allows them (the OpenAPI
 * document's `webhooks` section describes each payload). Typed as a Record over that enum, so a
 * type added to or removed from the API breaks this file at build time instead of being missed.
 */
export const EVENT_LABELS: Record<SubscribableEventType, string> = {
  'post.scheduled': 'A post was put on the queue (created, scheduled or moved)',
  'post.published': 'A post or thread item was published',
  'post.failed': 'A post or thread item failed and will not be retried',
  'post.deleted': 'A post was deleted',
  'post.overdue': 'A post is late: still not published minutes after its time',
  'post.approval_requested': 'A post was submitted for approval',
  'post.approved': 'A post was approved and queued',
  'post.changes_requested': 'Changes were requested on a post awaiting approval',
  'post.approval_expired': 'A post was still awaiting approval when its time came',
  'integration.connected': 'A channel was connected or reconnected',
  'integration.refresh_needed': 'A channel lost its access and must be reconnected',
  'integration.disconnected': 'A channel was disconnected (its queued posts failed)',
  'video.succeeded': 'A generated video is ready in the media library',
  'video.failed': 'A video generation failed (its credits were given back)',
  'series.created': 'A repeating post was created',
  'feed.item_posted': 'A new feed item was posted',
  'import.completed': 'A bulk import finished',
  'webhook.disabled': 'The service disabled this webhook',
};

export const EVENT_TYPES = Object.keys(EVENT_LABELS) as SubscribableEventType[];

/** Groups for the form (posts, channels, the webhook itself). */
export const EVENT_GROUPS: { label: string; types: SubscribableEventType[] }[] = [
  { label: 'Posts', types: EVENT_TYPES.filter((t) => t.startsWith('post.')) },
  { label: 'Channels', types: EVENT_TYPES.filter((t) => t.startsWith('integration.')) },
  { label: 'Autopilot', types: ['series.created', 'feed.item_posted', 'import.completed'] },
  { label: 'Webhook', types: EVENT_TYPES.filter((t) => t.startsWith('webhook.')) },
];
