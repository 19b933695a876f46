/**
 * The metrics port (issue 29): what engines, services and the HTTP edge record through. It names
 * events of the domain, never a metrics library, so engines stay free of prom-client and tests can
 * pass {@link noMetrics}. `prometheus.ts` implements it on a registry of the app's own (one per
 * `createDeps`, never prom-client's global one: tests build many apps in one process).
 *
 * Labels are bounded sets: platform identifiers, failure kinds, route templates, fixed outcome words.
 */

/** How one step of a publish ended (`kind`: the `PlatformError` kind, or a fixed word, below). */
export type PublishOutcome = 'published' | 'pending' | 'retry' | 'error' | 'reconcile';

/**
 * `kind` of a publish outcome: a `PlatformError` kind (`rejected`, `transient`, …), `unknown` for
 * anything else thrown, `none` for a success, `precheck` for a post ended before any request (channel
 * disconnected or disabled, missed, thread broken), `outcome_unknown` for an interrupted attempt that
 * cannot be looked up, `not_arrived` for a looked-up attempt that did not land, `pending_timeout` for
 * an asynchronous publish given up after `pendingMaxMs` without progress.
 */
export type PublishOutcomeKind = string;

export type WebhookDeliveryOutcome = 'delivered' | 'retry' | 'failed' | 'cancelled';
export type VideoJobOutcome = 'succeeded' | 'failed' | 'retry';

export interface Metrics {
  /** One publish step's outcome on `platform` (an identifier such as `telegram`). */
  publishOutcome(platform: string, outcome: PublishOutcome, kind: PublishOutcomeKind): void;
  /** A post published `seconds` after the time it was scheduled for (first item of a post only). */
  publishLag(platform: string, seconds: number): void;
  /** One webhook delivery attempt's outcome. */
  webhookDelivery(outcome: WebhookDeliveryOutcome): void;
  /** One video job attempt's outcome on `provider`. */
  videoJob(provider: string, outcome: VideoJobOutcome): void;
  /** A request refused by a rate limit (`front`: `api` for the HTTP API, `mcp` for MCP tool calls). */
  rateLimitRefused(front: 'api' | 'mcp'): void;
  /** An HTTP request answered (`route`: the route's URL template, or a fixed word when none matched). */
  httpRequest(method: string, route: string, status: number, seconds: number): void;
  /** Posts the overdue watchdog reported (`post.overdue`). */
  overdueReported(count: number): void;
}

/** Records nothing (tools and tests that do not look at metrics). */
export const noMetrics: Metrics = {
  publishOutcome: () => undefined,
  publishLag: () => undefined,
  webhookDelivery: () => undefined,
  videoJob: () => undefined,
  rateLimitRefused: () => undefined,
  httpRequest: () => undefined,
  overdueReported: () => undefined,
};
