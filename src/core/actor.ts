import { AsyncLocalStorage } from 'node:async_hooks';
import type { ActorKind, MemberRole } from '../db/schema/index.js';

/**
 * Who is acting (the activity log, issue 31): the person, API key, OAuth app, assistant (MCP) or
 * the service itself. Set once per authenticated request (`http/auth.ts`) and per MCP tool call
 * (`mcp/server.ts`), and read where something is recorded, so no service threads it through.
 */
export interface Actor {
  kind: ActorKind;
  /** the user, API key or OAuth client id; null for the system */
  id: string | null;
  /** what the log shows (kept as written, so it reads right after the person or key is gone) */
  name: string;
  /** a person's role in the organisation (kind `user`) — what approval rules ask about */
  role?: MemberRole;
  /** the credential the work came with (an assistant's calls keep their key's or token's) */
  credential?: { kind: 'api_key' | 'oauth_token' | 'session'; id: string };
  /** an API key the organisation exempted from its approval rules */
  approvalExempt?: boolean;
}

export const SYSTEM_ACTOR: Actor = Object.freeze({ kind: 'system', id: null, name: 'System' });

const storage = new AsyncLocalStorage<Actor>();

/** The actor of the work running now; the system when nobody set one (timers, workers, the CLI). */
export function currentActor(): Actor {
  return storage.getStore() ?? SYSTEM_ACTOR;
}

/** Runs `fn` (and everything it starts) as `actor`. */
export function runAsActor<T>(actor: Actor, fn: () => T): T {
  return storage.run(actor, fn);
}
