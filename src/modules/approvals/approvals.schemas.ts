import { z } from 'zod';
import { MediaItemRefSchema } from '../posts/posts.schemas.js';

const ApproverRole = z.enum(['owner', 'admin', 'member']);
const Scope = z.enum(['organization', 'channel', 'customer']);

export const ApprovalRuleSchema = z.object({
  id: z.string(),
  name: z.string(),
  scope: Scope.describe('what it covers: the whole organisation, one channel, or the channels of one client group (customer)'),
  scopeId: z.string().nullable().describe('the channel or client group; null for the organisation'),
  approverRoles: z.array(ApproverRole).describe('members with one of these roles approve'),
  approverUserIds: z.array(z.string()).describe('members named as approvers, whatever their role'),
  reapproveOnEdit: z.boolean().describe('a change by anyone who is not an approver sends an approved post back for approval'),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
});
export type ApprovalRuleOut = z.infer<typeof ApprovalRuleSchema>;

const name = z.string().trim().min(1).max(100);
export const CreateApprovalRuleBodySchema = z.object({
  name,
  scope: Scope,
  scopeId: z.string().optional().describe('required for channel and customer scopes'),
  approverRoles: z.array(ApproverRole).max(3).optional().describe("default ['owner', 'admin']"),
  approverUserIds: z.array(z.string()).max(100).optional(),
  reapproveOnEdit: z.boolean().optional().describe('default true'),
});
export type CreateApprovalRuleBody = z.infer<typeof CreateApprovalRuleBodySchema>;

export const UpdateApprovalRuleBodySchema = z.object({
  name: name.optional(),
  approverRoles: z.array(ApproverRole).max(3).optional(),
  approverUserIds: z.array(z.string()).max(100).optional(),
  reapproveOnEdit: z.boolean().optional(),
});
export type UpdateApprovalRuleBody = z.infer<typeof UpdateApprovalRuleBodySchema>;

export const RuleRefSchema = z.object({ id: z.string(), name: z.string() }).nullable();

export const ApprovalCheckQuerySchema = z.object({
  integrations: z.string().min(1).max(4000).describe('comma-separated channel ids'),
});
export const ApprovalCheckSchema = z.object({
  required: z.boolean().describe('you cannot queue a post on one of these channels without approval'),
  rule: RuleRefSchema.describe('the rule that asks for it (null: none, or the contributor role)'),
  canApprove: z.boolean().describe('you may approve posts on all of these channels'),
  canSchedule: z.boolean().describe('you may queue posts on all of these channels directly'),
});

const OpenStatus = z.enum(['pending_approval', 'changes_requested']);
export const ListApprovalsQuerySchema = z.object({
  status: z.enum(['pending_approval', 'changes_requested', 'all']).optional().describe('default: both open states (all)'),
});

export const ApprovalGroupSchema = z.object({
  group: z.string(),
  status: OpenStatus,
  publishDate: z.iso.datetime(),
  rule: RuleRefSchema,
  requestedBy: z.string().nullable(),
  requestedAt: z.iso.datetime().nullable(),
  decidedBy: z.string().nullable().describe('who last requested changes'),
  decidedAt: z.iso.datetime().nullable(),
  canApprove: z.boolean(),
  posts: z.array(
    z.object({
      id: z.string(),
      integration: z.object({ id: z.string(), name: z.string(), identifier: z.string(), picture: z.string().nullable() }),
      content: z.string(),
      image: z.array(MediaItemRefSchema),
      state: z.string(),
    }),
  ),
});
export const ListApprovalsSchema = z.object({ groups: z.array(ApprovalGroupSchema) });

export const GroupParamsSchema = z.object({ group: z.string().min(1).max(200) });
export const IdParamsSchema = z.object({ id: z.string().min(1).max(200) });

const comment = z.string().trim().min(1).max(5000);
export const SubmitBodySchema = z.object({ comment: comment.optional() });
export const ApproveBodySchema = z.object({
  comment: comment.optional(),
  date: z.string().optional().describe('a new publish date (ISO 8601, in the future); needed when the post\'s time has passed'),
});
export const RequestChangesBodySchema = z.object({ comment: comment.describe('what should change (written into the post\'s comment thread)') });

export const DecisionSchema = z.object({
  group: z.string(),
  status: z.enum(['pending_approval', 'changes_requested', 'approved']),
  posts: z.array(z.object({ id: z.string(), state: z.string(), publishDate: z.iso.datetime() })),
});

export const KeyExemptBodySchema = z.object({ approvalExempt: z.boolean() });
export const KeyExemptSchema = z.object({ id: z.string(), name: z.string(), approvalExempt: z.boolean() });
