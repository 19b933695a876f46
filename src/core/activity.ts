import type { Tx } from '../db/client.js';

/**
 * The activity log's port (issue 31): what services and engines call to record who did what. The
 * actor is not passed: the recorder reads it from `core/actor.ts` (the request's person, key, app
 * or assistant; the system otherwise). `modules/activity/` implements it; `deps.ts` wires it.
 */
export interface ActivityEntry {
  organizationId: string;
  /** `<target kind>.<verb>`, e.g. `post.created`, `channel.disabled`, `api_key.revoked` */
  action: string;
  targetKind: string;
  targetId: string | null;
  targetName?: string | null;
  /** what else is worth knowing; keys that look like secrets are dropped before it is stored */
  details?: Record<string, unknown>;
}

export interface ActivityRecorder {
  /** Records the entries (in `tx` when given, so they commit or roll back with the change). */
  record(entries: ActivityEntry | ActivityEntry[], tx?: Tx): Promise<void>;
}

/** Records nothing (services built without the log, e.g. in unit tests). */
export const NO_ACTIVITY: ActivityRecorder = { record: async () => undefined };

/** A short plain-text name for a target from its text (a post's content): tags out, spaces collapsed, 80 characters. */
export function excerpt(text: string | null | undefined, max = 80): string | null {
  if (!text) return null;
  const plain = text.replace(/<[^>]*>/g, ' ').replace(/&nbsp;/g, ' ').replace(/\s+/g, ' ').trim();
  if (plain === '') return null;
  return plain.length > max ? `${plain.slice(0, max - 1)}…` : plain;
}
