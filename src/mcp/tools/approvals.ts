import type { ApprovalsService } from '../../modules/approvals/approvals.service.js';
import {
  ApprovalCheckQuerySchema,
  ApprovalCheckSchema,
  ApprovalRuleSchema,
  ApproveBodySchema,
  DecisionSchema,
  GroupParamsSchema,
  ListApprovalsQuerySchema,
  ListApprovalsSchema,
  RequestChangesBodySchema,
  SubmitBodySchema,
} from '../../modules/approvals/approvals.schemas.js';
import { z } from 'zod';
import { defineTool } from '../tool.js';

const ABOUT =
  'Approval rules make posts wait for an approver before they are queued; a post awaiting approval is a draft (`approval.status` pending_approval or changes_requested). This connection is held to the rules unless an owner exempted its API key.';
const GROUP = 'the post group (`group` of a post, from list_posts, get_post or list_approvals)';

/** Approvals: the tools of `modules/approvals/approvals.routes.ts` an assistant may use (rules are managed in the web app). */
export function approvalTools(approvals: ApprovalsService) {
  return [
    defineTool({
      name: 'list_approval_rules',
      title: 'List the approval rules',
      route: 'GET /approval-rules',
      description: `The organisation's approval rules: scope (organisation, channel, client group), approvers, whether edits send approved posts back. ${ABOUT}`,
      input: {},
      hints: {},
      output: z.object({ rules: z.array(ApprovalRuleSchema) }),
      annotations: { readOnlyHint: true, idempotentHint: true },
      run: (ctx) => approvals.listRules(ctx.organizationId),
      summary: (r) => `${r.rules.length} rule(s)${r.rules.length ? `: ${r.rules.map((x) => `${x.name} (${x.scope})`).join('; ')}` : ''}`,
    }),
    defineTool({
      name: 'check_approval',
      title: 'Check whether posts need approval',
      route: 'GET /approvals/check',
      description: `Whether this connection may queue posts on these channels directly, or must create them as drafts and submit them for approval. ${ABOUT}`,
      input: { query: ApprovalCheckQuerySchema },
      hints: { integrations: 'comma-separated channel ids (from list_integrations)' },
      output: ApprovalCheckSchema,
      annotations: { readOnlyHint: true, idempotentHint: true },
      run: (ctx, { query }) => approvals.check(ctx.organizationId, query.integrations.split(',').map((s) => s.trim()).filter(Boolean)),
      summary: (r) => (r.required ? `Approval required${r.rule ? ` (rule "${r.rule.name}")` : ''}: create drafts and submit them` : 'No approval needed: posts may be queued directly'),
    }),
    defineTool({
      name: 'list_approvals',
      title: 'List posts awaiting approval',
      route: 'GET /approvals',
      description: `The approval queue: post groups awaiting approval or with changes requested, earliest first, with whether this connection may decide. ${ABOUT}`,
      input: { query: ListApprovalsQuerySchema },
      hints: { status: 'pending_approval, changes_requested, or all (default)' },
      output: ListApprovalsSchema,
      annotations: { readOnlyHint: true, idempotentHint: true },
      run: (ctx, { query }) => approvals.list(ctx.organizationId, query.status),
      summary: (r) => `${r.groups.length} post group(s) awaiting a decision${r.groups.length ? `: ${r.groups.slice(0, 10).map((g) => `${g.group} (${g.status}, ${g.publishDate})`).join('; ')}` : ''}`,
    }),
    defineTool({
      name: 'submit_for_approval',
      title: 'Submit a draft for approval',
      route: 'POST /posts/group/:group/submit',
      description: `Sends a draft post group (or one with changes requested) to its approvers; it stays a draft until approved. ${ABOUT}`,
      input: { params: GroupParamsSchema, body: SubmitBodySchema },
      hints: { group: GROUP, comment: 'a note for the approvers (goes into the post’s comment thread)' },
      output: DecisionSchema,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
      run: (ctx, { params, body }) => approvals.submit(ctx.organizationId, params.group, body ?? {}),
      summary: (r) => `Submitted ${r.group} for approval (${r.posts.length} post(s))`,
    }),
    defineTool({
      name: 'approve_post',
      title: 'Approve a post awaiting approval',
      route: 'POST /posts/group/:group/approve',
      description: `Approves a post group awaiting approval: it is queued for its time (give a new \`date\` when that time has passed). Only its approvers may (an exempt API key counts as one). ${ABOUT}`,
      input: { params: GroupParamsSchema, body: ApproveBodySchema },
      hints: { group: GROUP, comment: 'a note (goes into the post’s comment thread)', date: 'a new publish date (ISO 8601, future) when its time has passed' },
      output: DecisionSchema,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
      run: (ctx, { params, body }) => approvals.approve(ctx.organizationId, params.group, body ?? {}),
      summary: (r) => `Approved ${r.group}: queued for ${r.posts[0]?.publishDate ?? 'its time'}`,
    }),
    defineTool({
      name: 'request_changes',
      title: 'Ask for changes to a post awaiting approval',
      route: 'POST /posts/group/:group/request-changes',
      description: `Sends a post group awaiting approval back to its writer with a comment. ${ABOUT}`,
      input: { params: GroupParamsSchema, body: RequestChangesBodySchema },
      hints: { group: GROUP, comment: 'what should change' },
      output: DecisionSchema,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
      run: (ctx, { params, body }) => approvals.requestChanges(ctx.organizationId, params.group, body),
      summary: (r) => `Asked for changes to ${r.group}`,
    }),
  ];
}
