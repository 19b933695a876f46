import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Metrics } from './metrics.js';

/** What the scrape-time gauges read (each called once per scrape). */
export interface MetricSources {
  /** Posts whose scheduled time has passed and that are still queued; `overdue`: past the watchdog's threshold too. */
  duePosts(): Promise<{ due: number; overdue: number }>;
  /** The database connections of this process (PostgreSQL: the pg pool; embedded: its one connection). */
  pool(): { max: number; total: number; idle?: number; waiting?: number };
}

export interface PrometheusMetrics {
  metrics: Metrics;
  registry: Registry;
  /** The Prometheus text exposition of every metric of this app. */
  render(): Promise<string>;
  contentType: string;
}

/** Publish lag: seconds late, from "on time" (a few ms) to the 24 h after which a post is missed. */
const LAG_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 120, 300, 900, 3600, 21600, 86400];
/** HTTP request duration in seconds. */
const HTTP_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * The metrics of one app instance on a registry of its own (prom-client's global registry would
 * mix the apps tests build in one process). `defaults`: also the process metrics
 * (`collectDefaultMetrics`: CPU, memory, event loop lag, handles, GC), named with the `tidings_` prefix.
 */
export function createPrometheusMetrics(opts: { sources: MetricSources; defaults: boolean }): PrometheusMetrics {
  const registry = new Registry();
  const registers = [registry];
  if (opts.defaults) collectDefaultMetrics({ register: registry, prefix: 'tidings_' });

  const publishOutcomes = new Counter({
    name: 'tidings_publish_outcomes_total',
    help: 'Publish steps by platform, outcome (published, pending, retry, error, reconcile) and failure kind (a PlatformError kind, none, precheck, unknown, outcome_unknown, not_arrived)',
    labelNames: ['platform', 'outcome', 'kind'] as const,
    registers,
  });
  const publishLag = new Histogram({
    name: 'tidings_publish_lag_seconds',
    help: 'Seconds between the time a post was scheduled for and the time it was published (first item of each post), by platform',
    labelNames: ['platform'] as const,
    buckets: LAG_BUCKETS,
    registers,
  });
  const webhookDeliveries = new Counter({
    name: 'tidings_webhook_deliveries_total',
    help: 'Webhook delivery attempts by outcome (delivered, retry, failed: given up, cancelled: webhook disabled or deleted)',
    labelNames: ['outcome'] as const,
    registers,
  });
  const videoJobs = new Counter({
    name: 'tidings_video_jobs_total',
    help: 'Video generation attempts by provider and outcome (succeeded, failed, retry)',
    labelNames: ['provider', 'outcome'] as const,
    registers,
  });
  const rateLimited = new Counter({
    name: 'tidings_rate_limit_refusals_total',
    help: 'Requests refused with 429 by the organisation or session rate limit, by front door (api, mcp)',
    labelNames: ['front'] as const,
    registers,
  });
  const httpDuration = new Histogram({
    name: 'tidings_http_request_duration_seconds',
    help: 'HTTP request duration by method, route template (unmatched for requests no route took) and status code',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: HTTP_BUCKETS,
    registers,
  });
  const overdueReported = new Counter({
    name: 'tidings_overdue_posts_reported_total',
    help: 'Posts the overdue watchdog reported (post.overdue event and notification), each once per scheduled time',
    registers,
  });
  // Read at scrape time: one query for both post gauges. A scrape starts every collect() before
  // any of them awaits, so the two share the query in flight; the next scrape queries again.
  let pending: Promise<{ due: number; overdue: number }> | undefined;
  const readDue = () => {
    pending ??= opts.sources.duePosts().finally(() => (pending = undefined));
    return pending;
  };
  new Gauge({
    name: 'tidings_posts_due_unpublished',
    help: 'Posts whose scheduled time has passed and that are still queued (not published, not failed), read at scrape time',
    registers,
    async collect() {
      this.set((await readDue()).due);
    },
  });
  new Gauge({
    name: 'tidings_posts_overdue',
    help: 'Posts still queued more than PUBLISH_OVERDUE_SECONDS after their scheduled time, read at scrape time',
    registers,
    async collect() {
      this.set((await readDue()).overdue);
    },
  });
  new Gauge({
    name: 'tidings_db_pool_connections',
    help: 'Database connections of this process by state (total, idle, waiting: queries waiting for a connection, max: the pool size)',
    labelNames: ['state'] as const,
    registers,
    collect() {
      const p = opts.sources.pool();
      for (const state of ['max', 'total', 'idle', 'waiting'] as const) {
        const value = p[state];
        if (value !== undefined) this.set({ state }, value);
      }
    },
  });

  const metrics: Metrics = {
    publishOutcome: (platform, outcome, kind) => publishOutcomes.inc({ platform, outcome, kind }),
    publishLag: (platform, seconds) => publishLag.observe({ platform }, Math.max(0, seconds)),
    webhookDelivery: (outcome) => webhookDeliveries.inc({ outcome }),
    videoJob: (provider, outcome) => videoJobs.inc({ provider, outcome }),
    rateLimitRefused: (front) => rateLimited.inc({ front }),
    httpRequest: (method, route, status, seconds) => httpDuration.observe({ method, route, status_code: String(status) }, seconds),
    overdueReported: (count) => overdueReported.inc(count),
  };
  return { metrics, registry, render: () => registry.metrics(), contentType: registry.contentType };
}
