import type { Tx } from '../db/client.js';
import type { posts } from '../db/schema/index.js';

type PostRow = typeof posts.$inferSelect;
type NewPostRow = typeof posts.$inferInsert;

/**
 * The approval rules' port (issue 31): what the posts service asks before it queues a post, and
 * what it records when a post is held. The actor is not passed: the gate reads it from
 * `core/actor.ts` (the request's person and role, key or app; the system otherwise).
 * `modules/approvals/` implements it; `deps.ts` wires it.
 */
export interface ApprovalRuleRef {
  id: string;
  name: string;
}

/** Why the actor may not queue on a channel: the rule that holds it (null: the contributor role alone). */
export interface ApprovalHold {
  rule: ApprovalRuleRef | null;
  /** a change by this actor to an already approved post sends it back for approval */
  reapproveOnEdit: boolean;
  /** the sentence a refusal says, naming the rule and the channel */
  message: string;
}

export interface ApprovalChannel {
  id: string;
  name: string;
  customerId: string | null;
}

/** The channel as `post.*` events name it. */
export interface ApprovalEventChannel {
  id: string;
  identifier: string;
  name: string;
  sandbox?: boolean | null;
}

export interface ApprovalGate {
  /** For each channel the current actor may not queue on without approval, its hold (channels absent: free to queue). */
  holds(organizationId: string, channels: ApprovalChannel[], tx?: Tx): Promise<Map<string, ApprovalHold>>;
  /** The columns a thread's first row is written with to await approval (it stays a draft). */
  pendingColumns(ruleId: string | null, at: Date): Partial<NewPostRow>;
  /**
   * Records root posts that entered `pending_approval` — `post.approval_requested` each and the
   * activity entry — in `tx`; answers what to run once it committed (the approvers' notifications).
   */
  submitted(tx: Tx, organizationId: string, entries: { root: PostRow; channel: ApprovalEventChannel }[], at: Date, comment: string | null): Promise<() => Promise<void>>;
}

/** Holds nothing (services built without approvals, e.g. in unit tests). */
export const NO_APPROVALS: ApprovalGate = { holds: async () => new Map(), pendingColumns: () => ({}), submitted: async () => async () => undefined };
