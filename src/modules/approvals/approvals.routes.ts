import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorResponses } from '../../http/error-schema.js';
import type { ApprovalsService } from './approvals.service.js';
import {
  ApprovalCheckQuerySchema,
  ApprovalCheckSchema,
  ApprovalRuleSchema,
  ApproveBodySchema,
  CreateApprovalRuleBodySchema,
  DecisionSchema,
  GroupParamsSchema,
  IdParamsSchema,
  KeyExemptBodySchema,
  KeyExemptSchema,
  ListApprovalsQuerySchema,
  ListApprovalsSchema,
  RequestChangesBodySchema,
  SubmitBodySchema,
  UpdateApprovalRuleBodySchema,
} from './approvals.schemas.js';

const tags = ['Approvals'];
/** the web app's own (owners and admins manage rules; owners exempt keys): no MCP tool */
const appTags = ['Approvals', 'Web app'];
const RULES =
  'An approval rule makes posts on its scope (the organisation, one channel, or one client group\'s channels) wait for an approver before they are queued; the most specific rule of a channel decides. Contributors always submit for approval.';

export function approvalsRoutes(service: ApprovalsService): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/approval-rules',
      { schema: { tags, summary: "The organisation's approval rules", description: RULES, response: { 200: z.object({ rules: z.array(ApprovalRuleSchema) }) } } },
      async (req) => service.listRules(req.auth.organizationId),
    );

    app.post(
      '/approval-rules',
      {
        schema: {
          tags: appTags,
          summary: 'Add an approval rule (owners and admins, from the web app)',
          description: `${RULES} One rule per scope (a second is a 409).`,
          body: CreateApprovalRuleBodySchema,
          response: { 201: ApprovalRuleSchema, ...errorResponses('FORBIDDEN', 'CONFLICT') },
        },
      },
      async (req, reply) => reply.status(201).send(await service.createRule(req.auth.organizationId, req.body)),
    );

    app.put(
      '/approval-rules/:id',
      {
        schema: { tags: appTags, summary: 'Change an approval rule (its scope stays)', params: IdParamsSchema, body: UpdateApprovalRuleBodySchema, response: { 200: ApprovalRuleSchema, ...errorResponses('FORBIDDEN', 'NOT_FOUND') } },
      },
      async (req) => service.updateRule(req.auth.organizationId, req.params.id, req.body),
    );

    app.delete(
      '/approval-rules/:id',
      { schema: { tags: appTags, summary: 'Remove an approval rule (posts awaiting approval keep waiting)', params: IdParamsSchema, response: { 204: z.null(), ...errorResponses('FORBIDDEN', 'NOT_FOUND') } } },
      async (req, reply) => {
        await service.deleteRule(req.auth.organizationId, req.params.id);
        return reply.status(204).send(null);
      },
    );

    app.get(
      '/approvals/check',
      {
        schema: {
          tags,
          summary: 'Whether you may queue posts on these channels, or must submit them for approval',
          querystring: ApprovalCheckQuerySchema,
          response: { 200: ApprovalCheckSchema },
        },
      },
      async (req) => service.check(req.auth.organizationId, req.query.integrations.split(',').map((s) => s.trim()).filter(Boolean)),
    );

    app.get(
      '/approvals',
      {
        schema: {
          tags,
          summary: 'Posts awaiting approval, or with changes requested (the approval queue)',
          description: 'Grouped as the calendar shows them (one post group across its channels), earliest date first; `canApprove` says whether you may decide.',
          querystring: ListApprovalsQuerySchema,
          response: { 200: ListApprovalsSchema },
        },
      },
      async (req) => service.list(req.auth.organizationId, req.query.status),
    );

    app.post(
      '/posts/group/:group/submit',
      {
        schema: {
          tags,
          summary: 'Submit a draft post group for approval',
          description: 'A draft (or a post with changes requested) goes to its approvers (`post.approval_requested`, a notification each); it stays a draft until approved. The comment, if any, goes into the post\'s comment thread.',
          params: GroupParamsSchema,
          body: SubmitBodySchema,
          response: { 200: DecisionSchema, ...errorResponses('NOT_FOUND', 'CONFLICT') },
        },
      },
      async (req) => service.submit(req.auth.organizationId, req.params.group, req.body ?? {}),
    );

    app.post(
      '/posts/group/:group/approve',
      {
        schema: {
          tags,
          summary: 'Approve a post group awaiting approval: it is queued for its time',
          description: 'Only its approvers (the rule\'s roles and named people; owners and admins when no rule names any; a key the organisation exempted). When its time passed while it waited, give a new `date` (else 409).',
          params: GroupParamsSchema,
          body: ApproveBodySchema,
          response: { 200: DecisionSchema, ...errorResponses('FORBIDDEN', 'NOT_FOUND', 'CONFLICT', 'PLAN_LIMIT_REACHED') },
        },
      },
      async (req) => service.approve(req.auth.organizationId, req.params.group, req.body ?? {}),
    );

    app.post(
      '/posts/group/:group/request-changes',
      {
        schema: {
          tags,
          summary: 'Ask for changes to a post group awaiting approval',
          description: 'The comment goes into the post\'s comment thread and to whoever submitted it; the writer edits it and submits it again.',
          params: GroupParamsSchema,
          body: RequestChangesBodySchema,
          response: { 200: DecisionSchema, ...errorResponses('FORBIDDEN', 'NOT_FOUND', 'CONFLICT') },
        },
      },
      async (req) => service.requestChanges(req.auth.organizationId, req.params.group, req.body),
    );

    app.put(
      '/api-keys/:id/approval',
      {
        schema: {
          tags: appTags,
          summary: 'Exempt an API key from approval rules, or hold it to them again (owners, from the web app)',
          params: IdParamsSchema,
          body: KeyExemptBodySchema,
          response: { 200: KeyExemptSchema, ...errorResponses('FORBIDDEN', 'NOT_FOUND') },
        },
      },
      async (req) => service.setKeyExempt(req.auth.organizationId, req.params.id, req.body.approvalExempt),
    );
  };
}
