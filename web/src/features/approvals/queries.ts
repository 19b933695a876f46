import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client.js';
import type { ApprovalStatus, RuleBody, RuleChanges } from './types.js';

/** The approvals routes (issue 31) through the typed client; refusals come back as `ApiFailure`. */

export const approvalKeys = {
  all: ['approvals'] as const,
  queue: (status: string) => ['approvals', 'queue', status] as const,
  rules: ['approvals', 'rules'] as const,
  check: (ids: readonly string[]) => ['approvals', 'check', [...ids].sort().join(',')] as const,
};

/** GET /approvals: the open groups (pending and changes requested), or one status. */
export function useApprovalQueue(status: Exclude<ApprovalStatus, 'approved'> | 'all' = 'all') {
  return useQuery({
    queryKey: approvalKeys.queue(status),
    queryFn: async () => (await unwrap(api.GET('/approvals', { params: { query: status === 'all' ? {} : { status } } }))).groups,
    refetchOnWindowFocus: true,
  });
}

/** GET /approvals/check: whether posting on these channels needs approval, for the composer and the post page. */
export function useApprovalCheck(integrationIds: readonly string[]) {
  return useQuery({
    queryKey: approvalKeys.check(integrationIds),
    queryFn: () => unwrap(api.GET('/approvals/check', { params: { query: { integrations: integrationIds.join(',') } } })),
    enabled: integrationIds.length > 0,
    staleTime: 30_000,
  });
}

const inGroup = (group: string) => ({ params: { path: { group } } });

export function submitGroup(group: string, comment?: string) {
  return unwrap(api.POST('/posts/group/{group}/submit', { ...inGroup(group), body: comment ? { comment } : {} }));
}

export function approveGroup(group: string, input: { comment?: string; date?: string } = {}) {
  return unwrap(api.POST('/posts/group/{group}/approve', { ...inGroup(group), body: input }));
}

export function requestChanges(group: string, comment: string) {
  return unwrap(api.POST('/posts/group/{group}/request-changes', { ...inGroup(group), body: { comment } }));
}

/** After a decision: the queue, every post list and the group's comments are read again. */
function useRefreshAfterDecision() {
  const qc = useQueryClient();
  return (group: string) =>
    Promise.all([
      qc.invalidateQueries({ queryKey: approvalKeys.all }),
      qc.invalidateQueries({ queryKey: ['posts'] }),
      qc.invalidateQueries({ queryKey: ['post'] }),
      qc.invalidateQueries({ queryKey: ['comments', group] }),
    ]);
}

export type Decision = { kind: 'submit'; comment?: string } | { kind: 'approve'; comment?: string; date?: string } | { kind: 'request-changes'; comment: string };

/** Submit, approve or request changes on a post group. */
export function useDecision(group: string) {
  const refresh = useRefreshAfterDecision();
  return useMutation({
    mutationFn: (d: Decision): Promise<{ group: string; status: ApprovalStatus }> =>
      d.kind === 'submit' ? submitGroup(group, d.comment) : d.kind === 'approve' ? approveGroup(group, { ...(d.comment ? { comment: d.comment } : {}), ...(d.date ? { date: d.date } : {}) }) : requestChanges(group, d.comment),
    onSuccess: () => refresh(group),
  });
}

/** GET /approval-rules (any member reads them) */
export function useApprovalRules(enabled = true) {
  return useQuery({ queryKey: approvalKeys.rules, queryFn: async () => (await unwrap(api.GET('/approval-rules'))).rules, enabled });
}

export function createRule(body: RuleBody) {
  return unwrap(api.POST('/approval-rules', { body }));
}

export function updateRule(id: string, body: RuleChanges) {
  return unwrap(api.PUT('/approval-rules/{id}', { params: { path: { id } }, body }));
}

export function deleteRule(id: string) {
  return unwrap(api.DELETE('/approval-rules/{id}', { params: { path: { id } } }));
}

/** PUT /api-keys/{id}/approval: an API key exempt from approval rules queues posts directly (owners). */
export function setKeyExempt(id: string, approvalExempt: boolean) {
  return unwrap(api.PUT('/api-keys/{id}/approval', { params: { path: { id } }, body: { approvalExempt } }));
}
