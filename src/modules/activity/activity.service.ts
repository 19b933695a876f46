import type { ActivityEntry } from '../../core/activity.js';
import { currentActor } from '../../core/actor.js';
import type { Tx } from '../../db/client.js';
import type { ActivityRow } from '../../db/schema/index.js';
import { fieldError } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import type { ActivityPosition, ActivityRepository } from './activity.repository.js';
import { redact } from './activity.redact.js';
import type { ActivityPage, ActivityQuery } from './activity.schemas.js';

/** The shortest retention there is: the log is kept at least 90 days. */
export const MIN_RETENTION_DAYS = 90;
const DAY_MS = 24 * 3600_000;

function encodeCursor(p: ActivityPosition): string {
  return Buffer.from(`${p.at.toISOString()}|${p.id}`).toString('base64url');
}

function decodeCursor(cursor: string): ActivityPosition {
  const [at, id, extra] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  const when = at ? new Date(at) : undefined;
  if (!when || Number.isNaN(when.getTime()) || !id || !/^[0-9a-f-]{36}$/i.test(id) || extra !== undefined) {
    throw fieldError('cursor', 'is not a cursor this list gave (use nextCursor of the previous page)');
  }
  return { at: when, id };
}

const cut = (s: string | null | undefined, max: number) => (s == null ? null : s.length > max ? `${s.slice(0, max - 1)}…` : s);

function toEntry(row: ActivityRow) {
  return {
    id: row.id,
    at: row.at.toISOString(),
    actor: { kind: row.actorKind, id: row.actorId, name: row.actorName },
    action: row.action,
    target: { kind: row.targetKind, id: row.targetId, name: row.targetName },
    details: row.details,
  };
}

/**
 * The activity log (issue 31): `record` for every service (the actor comes from `core/actor.ts`),
 * the organisation's list with filters and cursor paging, and the retention purge.
 */
export function createActivityService(deps: { activity: ActivityRepository; clock: Clock; retentionDays?: number }) {
  const { activity, clock } = deps;
  const retentionDays = Math.max(MIN_RETENTION_DAYS, deps.retentionDays ?? MIN_RETENTION_DAYS);

  const service = {
    /** Records what the current actor did, in `tx` when given (it commits or rolls back with the change). */
    async record(entries: ActivityEntry | ActivityEntry[], tx?: Tx): Promise<void> {
      const list = Array.isArray(entries) ? entries : [entries];
      if (list.length === 0) return;
      const actor = currentActor();
      const at = new Date(clock.now());
      await activity.insert(
        list.map((e) => ({
          organizationId: e.organizationId,
          at,
          actorKind: actor.kind,
          actorId: actor.id,
          actorName: cut(actor.name, 200) ?? 'Unknown',
          action: e.action,
          targetKind: e.targetKind,
          targetId: e.targetId,
          targetName: cut(e.targetName, 200),
          details: redact(e.details),
        })),
        tx,
      );
    },

    async list(organizationId: string, query: ActivityQuery): Promise<ActivityPage> {
      const from = query.from ? new Date(query.from) : undefined;
      const to = query.to ? new Date(query.to) : undefined;
      if (from && to && from >= to) throw fieldError('to', 'must be after from');
      const after = query.cursor ? decodeCursor(query.cursor) : undefined;
      const rows = await activity.list(
        organizationId,
        { from, to, actorKind: query.actorKind, actorId: query.actorId, action: query.action, targetKind: query.targetKind, targetId: query.targetId },
        after,
        query.limit + 1,
      );
      const page = rows.slice(0, query.limit);
      const last = page[page.length - 1];
      return { entries: page.map(toEntry), nextCursor: rows.length > query.limit && last ? encodeCursor({ at: last.at, id: last.id }) : null };
    },

    /** Deletes the entries older than the retention (`ACTIVITY_RETENTION_DAYS`, never under 90 days). */
    async purge(): Promise<number> {
      return activity.purge(new Date(clock.now() - retentionDays * DAY_MS));
    },
  };
  return service;
}

export type ActivityService = ReturnType<typeof createActivityService>;
