import type { ActivityRecorder } from '../../core/activity.js';
import type { LinkShortenerPort } from '../../core/short-links.js';
import type { ChannelAccess } from '../../core/channels/channel-access.js';
import type { ChannelsRepository, IntegrationRow } from '../../core/channels/channels.repository.js';
import type { PublishQueue } from '../../core/queues.js';
import type { ImageFitter } from '../../core/media/image-fitter.js';
import type { PlatformAdapter } from '../../platforms/platform.js';
import type { Metrics } from '../../core/metrics/metrics.js';
import type { PublishingRepository } from './publishing.repository.js';

export type { IntegrationRow } from '../../core/channels/channels.repository.js';
export type { PostRow } from './publishing.repository.js';

export interface PublisherOptions {
  /** posts that come due more than this late (the service was down) end ERROR "missed" */
  maxLatenessMs: number;
  /** attempts before a transient failure becomes final */
  maxAttempts: number;
  /**
   * First retry of a transient failure, within `retryFirstMs`–2×`retryFirstMs`: a blip (one 502,
   * a reset connection) should cost the post seconds, not minutes.
   */
  retryFirstMs: number;
  /** the retry after that; doubles each further attempt, with jitter */
  retryBaseMs: number;
  retryMaxMs: number;
  /** one publish call (uploads included) */
  attemptTimeoutMs: number;
  /**
   * An asynchronous publish (`pending`) is first checked this long after it answered, then at
   * half the time it has been processing (backoff), at most every `pendingPollMaxMs`, and given
   * up after `pendingMaxMs`. An adapter that knows better says so (`pollAfterMs`).
   */
  pendingPollMs: number;
  pendingPollMaxMs: number;
  pendingMaxMs: number;
}

export const DEFAULT_PUBLISHER_OPTIONS: PublisherOptions = {
  maxLatenessMs: 24 * 3600_000,
  maxAttempts: 6,
  retryFirstMs: 1_000,
  retryBaseMs: 30_000,
  retryMaxMs: 30 * 60_000,
  attemptTimeoutMs: 5 * 60_000,
  pendingPollMs: 5_000,
  pendingPollMaxMs: 60_000,
  pendingMaxMs: 30 * 60_000,
};

/** What the parts of the publisher (`publisher.ts` and the `publish-*.ts` files) share; built once by `createPublisher`. */
export interface PublisherEnv {
  posts: PublishingRepository;
  channels: Pick<ChannelsRepository, 'findChannel' | 'markRefreshNeeded' | 'blockPublishingUntil'>;
  queue: Pick<PublishQueue, 'schedule'>;
  access: ChannelAccess;
  fitter: ImageFitter;
  /** the public URL the service serves a storage key at, for renditions */
  mediaUrl: (storageKey: string) => string;
  workerId: string;
  options: PublisherOptions;
  logger: { warn(obj: unknown, msg?: string): void; info(obj: unknown, msg?: string): void };
  now: () => Date;
  /** random in [0, 1) */
  random: () => number;
  /** publish outcomes and lag (engines record through the port, never prom-client) */
  metrics: Metrics;
  /** the activity log port (`core/activity.ts`) */
  activity: ActivityRecorder;
  /** short links (`core/short-links.ts`); none: links are published as written */
  links: LinkShortenerPort | undefined;
}

/** The channel's adapter, or none when its platform is unknown here. */
export function adapterOrNone(env: PublisherEnv, integration: IntegrationRow): PlatformAdapter | undefined {
  try {
    return env.access.adapterOf(integration);
  } catch {
    return undefined;
  }
}

/** The channel as messages name it: "Bluesky (Acme)". */
export function channelLabel(env: PublisherEnv, integration: IntegrationRow | undefined): string {
  if (!integration) return 'the channel';
  const adapter = adapterOrNone(env, integration);
  return `${adapter?.metadata.displayName ?? integration.identifier} (${integration.name})`;
}
