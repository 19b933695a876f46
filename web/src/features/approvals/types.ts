import type { components, paths } from '../../api/schema.js';

/** The approvals API's shapes (issue 31), from the generated API types. */
type Json<T> = T extends { content: { 'application/json': infer B } } ? B : never;
type Body<T> = T extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;

export type ApprovalRule = Json<paths['/approval-rules']['get']['responses'][200]>['rules'][number];
/** POST /approval-rules (`scopeId` for the channel and client-group scopes). */
export type RuleBody = Body<paths['/approval-rules']['post']>;
/** PUT /approval-rules/{id}: a rule's scope stays what it was made with. */
export type RuleChanges = Body<paths['/approval-rules/{id}']['put']>;
export type RuleScope = ApprovalRule['scope'];
export type ApproverRole = ApprovalRule['approverRoles'][number];

/** GET /approvals/check?integrations=… */
export type ApprovalCheck = Json<paths['/approvals/check']['get']['responses'][200]>;
/** One post group in GET /approvals. */
export type ApprovalGroup = Json<paths['/approvals']['get']['responses'][200]>['groups'][number];
export type ApproveResult = Json<paths['/posts/group/{group}/approve']['post']['responses'][200]>;

/** A post's `approval` on GET /posts, GET /posts/{id} and GET /posts/group/{group}. */
export type PostApproval = NonNullable<components['schemas']['Post']['approval']>;
export type ApprovalStatus = PostApproval['status'];

export const STATUS_LABEL: Record<ApprovalStatus, string> = {
  pending_approval: 'Pending approval',
  changes_requested: 'Changes requested',
  approved: 'Approved',
};

/** A post's approval (null when it never went through approval). */
export function approvalOf(post: { approval?: PostApproval | null } | undefined): PostApproval | null {
  return post?.approval ?? null;
}
