import { PlatformError, type AnalyticsSeries } from '../platform.js';

/**
 * What the article platforms (DEV, Hashnode) share: the cover the platform pulls from a public
 * https URL, lifetime figures reported as today's totals, and a refused key on connect named by field.
 */

/** The cover the platform pulls: the `main_image` setting, else the post's picture; it must be https. */
export function httpsCoverUrl(platform: string, settings: { main_image?: { path?: string } }, media: { path: string; type: string }[]): string | undefined {
  const path = settings.main_image?.path ?? media.find((m) => m.type === 'image')?.path;
  if (!path) return undefined;
  if (!/^https:\/\//i.test(path)) {
    throw new PlatformError('rejected', `${platform} fetches the cover picture from its public address, and ${path} is not https: set PUBLIC_URL (or S3_PUBLIC_URL) to an https address ${platform} can reach`);
  }
  return path;
}

/** Lifetime figures of one post, each as a series with one point: today's total. */
export function lifetimeTotals(now: number, figures: [label: string, n: number | null | undefined][]): AnalyticsSeries[] {
  const date = new Date(now).toISOString().slice(0, 10);
  return figures.map(([label, n]) => ({ label, percentageChange: 0, data: [{ date, total: Number(n ?? 0) || 0 }] }));
}

/**
 * On connect, a refusal of the key (anything but transient or rate-limited) becomes `rejected`
 * naming `field`, its message prefixed once with `prefix`; anything else is thrown as it is.
 */
export function refusedOnConnect(e: unknown, prefix: string, field: string): never {
  if (e instanceof PlatformError && e.kind !== 'transient' && e.kind !== 'rate_limited') {
    throw new PlatformError('rejected', `${prefix}${e.message.startsWith(prefix) ? e.message.slice(prefix.length) : e.message}`, { field, status: e.details.status });
  }
  throw e;
}
