/**
 * The approvals API's shapes (issue 31), typed by hand from the contract until the generated
 * types (`npm run api:types`) carry the approvals routes; then these become aliases of those.
 */

export type ApprovalStatus = 'pending_approval' | 'changes_requested' | 'approved';
export type RuleScope = 'organization' | 'channel' | 'customer';
export type ApproverRole = 'owner' | 'admin' | 'member';

export interface RuleRef {
  id: string;
  name: string;
}

/** A post's `approval` on GET /posts, GET /posts/{id} and GET /posts/group/{group}. */
export interface PostApproval {
  status: ApprovalStatus;
  /** the rule that asked for it (GET /approval-rules); null when asked by hand or by the contributor role */
  ruleId: string | null;
  requestedBy: string | null;
  requestedAt: string | null;
  decidedBy: string | null;
  decidedAt: string | null;
}

export interface ApprovalRule {
  id: string;
  name: string;
  scope: RuleScope;
  scopeId: string | null;
  approverRoles: ApproverRole[];
  approverUserIds: string[];
  reapproveOnEdit: boolean;
  createdAt: string;
  updatedAt: string;
}

/** PUT /approval-rules/{id}: a rule's scope stays what it was made with. */
export interface RuleChanges {
  name?: string;
  approverRoles?: ApproverRole[];
  approverUserIds?: string[];
  reapproveOnEdit?: boolean;
}

/** POST /approval-rules (`scopeId` for the channel and client-group scopes). */
export interface RuleBody extends RuleChanges {
  name: string;
  scope: RuleScope;
  scopeId?: string;
}

/** GET /approvals/check?integrations=… */
export interface ApprovalCheck {
  required: boolean;
  rule: RuleRef | null;
  canApprove: boolean;
  canSchedule: boolean;
}

export interface ApprovalGroupPost {
  id: string;
  integration: { id: string; name: string; identifier: string; picture: string | null };
  content: string;
  image: unknown[];
  state: string;
}

/** One post group in GET /approvals. */
export interface ApprovalGroup {
  group: string;
  status: ApprovalStatus;
  publishDate: string;
  rule: RuleRef | null;
  requestedBy: string | null;
  requestedAt: string | null;
  decidedBy: string | null;
  decidedAt: string | null;
  canApprove: boolean;
  posts: ApprovalGroupPost[];
}

export interface ApproveResult {
  group: string;
  status: 'approved';
  posts: { id: string; state: 'QUEUE'; publishDate: string }[];
}

export const STATUS_LABEL: Record<ApprovalStatus, string> = {
  pending_approval: 'Pending approval',
  changes_requested: 'Changes requested',
  approved: 'Approved',
};

/** A post's approval, read from a post the generated types do not describe it on yet. */
export function approvalOf(post: unknown): PostApproval | null {
  const a = (post as { approval?: PostApproval | null } | null | undefined)?.approval;
  return a ?? null;
}
