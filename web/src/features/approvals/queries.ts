import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { API_BASE, csrfHeader, signInUrl, unwrap } from '../../api/client.js';
import type { ApprovalCheck, ApprovalGroup, ApprovalRule, ApprovalStatus, ApproveResult, RuleBody, RuleChanges } from './types.js';

/**
 * The approvals routes (issue 31). They are called through `fetch` with the session's CSRF token,
 * the way the typed client does, until the generated API types describe them; refusals come back
 * as the same `ApiFailure` (`unwrap`).
 */
async function call<T>(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = method === 'GET' ? {} : { ...csrfHeader() };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${API_BASE}${path}`, { method, credentials: 'same-origin', headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  // the session ended (signed out elsewhere, expired): sign in again and come back, as the typed client does
  if (response.status === 401) window.location.assign(signInUrl());
  const text = await response.text();
  let data: unknown;
  try {
    data = text ? JSON.parse(text) : undefined;
  } catch {
    data = undefined;
  }
  return unwrap<T>(Promise.resolve(response.ok ? { data: data as T, response } : { error: data ?? {}, response }));
}

const g = (group: string) => `/posts/group/${encodeURIComponent(group)}`;

export const approvalKeys = {
  all: ['approvals'] as const,
  queue: (status: string) => ['approvals', 'queue', status] as const,
  rules: ['approvals', 'rules'] as const,
  check: (ids: readonly string[]) => ['approvals', 'check', [...ids].sort().join(',')] as const,
};

/** GET /approvals: the open groups (pending and changes requested), or one status. */
export function useApprovalQueue(status: ApprovalStatus | 'all' = 'all') {
  return useQuery({
    queryKey: approvalKeys.queue(status),
    queryFn: async () => (await call<{ groups: ApprovalGroup[] }>('GET', `/approvals${status === 'all' ? '' : `?status=${status}`}`)).groups,
    refetchOnWindowFocus: true,
  });
}

/** GET /approvals/check: whether posting on these channels needs approval, for the composer. */
export function useApprovalCheck(integrationIds: readonly string[]) {
  return useQuery({
    queryKey: approvalKeys.check(integrationIds),
    queryFn: () => call<ApprovalCheck>('GET', `/approvals/check?integrations=${integrationIds.map(encodeURIComponent).join(',')}`),
    enabled: integrationIds.length > 0,
    staleTime: 30_000,
  });
}

export function submitGroup(group: string, comment?: string) {
  return call<{ group: string; status: 'pending_approval' }>('POST', `${g(group)}/submit`, comment ? { comment } : {});
}

export function approveGroup(group: string, input: { comment?: string; date?: string } = {}) {
  return call<ApproveResult>('POST', `${g(group)}/approve`, input);
}

export function requestChanges(group: string, comment: string) {
  return call<{ group: string; status: 'changes_requested' }>('POST', `${g(group)}/request-changes`, { comment });
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
  return useQuery({ queryKey: approvalKeys.rules, queryFn: async () => (await call<{ rules: ApprovalRule[] }>('GET', '/approval-rules')).rules, enabled });
}

export function createRule(body: RuleBody) {
  return call<ApprovalRule>('POST', '/approval-rules', body);
}

export function updateRule(id: string, body: RuleChanges) {
  return call<ApprovalRule>('PUT', `/approval-rules/${encodeURIComponent(id)}`, body);
}

export function deleteRule(id: string) {
  return call<void>('DELETE', `/approval-rules/${encodeURIComponent(id)}`);
}

/** PUT /api-keys/{id}/approval: an API key exempt from approval rules queues posts directly (owners). */
export function setKeyExempt(id: string, approvalExempt: boolean) {
  return call<{ id: string; name: string; approvalExempt: boolean }>('PUT', `/api-keys/${encodeURIComponent(id)}/approval`, { approvalExempt });
}
