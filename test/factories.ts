import { randomUUID } from 'node:crypto';

import { expect } from 'vitest';
import { media } from '../src/db/schema/index.js';
import { createManualClock, type ManualClock } from '../src/lib/clock.js';
import type { PlatformIdentifier } from '../src/platforms/platform.js';
import { PUBLISH_QUEUE } from '../src/engines/publishing/publish-queue.js';
import type { TestApp, TestOrg } from './helpers.js';

/**
 * Test factories: channels and media rows created directly (platforms without a simulator yet,
 * media before the upload routes exist), and a time machine for the publisher.
 */

export interface ChannelOptions {
  name?: string;
  credentials?: Record<string, unknown> | null;
  disabled?: boolean;
  refreshNeeded?: boolean;
  instanceUrl?: string | null;
  defaultSettings?: Record<string, unknown> | null;
  customerId?: string | null;
  tokenExpiresAt?: Date | null;
  internalId?: string;
}

/** A channel row of `org` on `identifier` with sealed credentials (default `{ token: 'test' }`). */
export async function createChannel(t: TestApp, org: TestOrg, identifier: PlatformIdentifier, opts: ChannelOptions = {}) {
  const credentials = opts.credentials === undefined ? { token: 'test' } : opts.credentials;
  return t.deps.repositories.integrations.insertIntegration({
    organizationId: org.id,
    identifier,
    internalId: opts.internalId ?? randomUUID(),
    name: opts.name ?? `${identifier} channel`,
    credentials: credentials === null ? null : t.deps.secretBox.seal(JSON.stringify(credentials)),
    disabled: opts.disabled ?? false,
    refreshNeeded: opts.refreshNeeded ?? false,
    instanceUrl: opts.instanceUrl ?? null,
    defaultSettings: opts.defaultSettings ?? null,
    customerId: opts.customerId ?? null,
    tokenExpiresAt: opts.tokenExpiresAt ?? null,
  });
}

export interface MediaOptions {
  type?: 'image' | 'video';
  mimeType?: string;
  size?: number;
  width?: number | null;
  height?: number | null;
  duration?: number | null;
  name?: string;
}

/**
 * A media library row of `org` with no file behind it (for validation and listing tests; upload
 * through `POST /upload` when the bytes matter). Its key has the stored shape `yyyy/mm/<hex>.<ext>`.
 */
export async function createMedia(t: TestApp, org: TestOrg, opts: MediaOptions = {}) {
  const id = randomUUID();
  const type = opts.type ?? 'image';
  const mimeType = opts.mimeType ?? (type === 'image' ? 'image/png' : 'video/mp4');
  const ext = { 'image/jpeg': 'jpg', 'video/quicktime': 'mov' }[mimeType] ?? mimeType.split('/')[1];
  const name = opts.name ?? `${id.replaceAll('-', '')}.${ext}`;
  const key = `2026/01/${name}`;
  const [row] = await t.deps.database.db
    .insert(media)
    .values({
      id,
      organizationId: org.id,
      name,
      originalName: name,
      path: `${t.deps.config.publicUrl}/media/${key}`,
      storageKey: key,
      type,
      mimeType,
      size: opts.size ?? 1000,
      width: opts.width === undefined ? (type === 'image' ? 800 : 1280) : opts.width,
      height: opts.height === undefined ? (type === 'image' ? 600 : 720) : opts.height,
      duration: opts.duration === undefined ? (type === 'video' ? 10 : null) : opts.duration,
    })
    .returning();
  return row!;
}

/**
 * Moves time forward for the publisher: the app's manual clock advances by `ms`, and every publish
 * job waiting in pg-boss (whose start times the database's own clock compares) is brought `ms`
 * closer, so a job due in `ms` becomes due now. Then the dispatcher looks at the queue. Jobs the
 * publisher schedules afterwards need `releaseDueJobs`.
 */
export async function advanceTime(t: TestApp, clock: ManualClock, ms: number) {
  clock.advance(ms);
  await t.deps.database.sql.executeSql(
    `UPDATE pgboss.job SET start_after = start_after - ($2::text || ' milliseconds')::interval WHERE name = $1 AND state < 'active'`,
    [PUBLISH_QUEUE, String(ms)],
  );
  t.deps.dispatcher?.poke();
}

/**
 * Makes every waiting publish job that is due by the app's clock due in the database too. Jobs the
 * publisher schedules after `advanceTime` (a thread's next item, a retry) carry the clock's offset
 * into pg-boss, which compares with the database's real clock; call this once they exist. (Not for
 * jobs `advanceTime` already shifted: their start times are no longer in app time.)
 */
export async function releaseDueJobs(t: TestApp, clock: ManualClock) {
  await t.deps.database.sql.executeSql(
    `UPDATE pgboss.job SET start_after = now() - interval '1 millisecond' WHERE name = $1 AND state < 'active' AND start_after <= $2::timestamptz`,
    [PUBLISH_QUEUE, new Date(clock.now()).toISOString()],
  );
  t.deps.dispatcher?.poke();
}

/** Polls `fn` until it returns a truthy value (or fails the test after `timeoutMs`). */
export async function waitFor<T>(fn: () => Promise<T | undefined | null | false>, timeoutMs = 15_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) expect.fail(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Rows of the `events` outbox of an organisation, oldest first. */
export async function eventsOf(t: TestApp, organizationId: string) {
  const { rows } = await t.deps.database.sql.executeSql(`SELECT type, payload FROM events WHERE organization_id = $1 ORDER BY created_at, id`, [organizationId]);
  return rows as { type: string; payload: Record<string, unknown> }[];
}


/**
 * A manual clock that starts at the real current time. Publisher tests need it: pg-boss compares
 * job start times with the database's real clock, so the app clock must start from real time.
 */
export function realtimeManualClock(): ManualClock {
  return createManualClock(Date.now());
}
