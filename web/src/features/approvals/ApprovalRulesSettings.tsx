import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, unwrap } from '../../api/client.js';
import { useGroups, useIntegrations } from '../../api/queries.js';
import { useCanManage } from '../../api/session.js';
import { Field, Notice, TextInput } from '../../components/ui.js';
import { platformName } from '../../lib/platforms.js';
import { FormFooter, toggle, useFormSave } from '../settings/common.js';
import { fieldError } from '../settings/errors.js';
import { NamedItemsSection } from '../settings/NamedItemsSection.js';
import { approvalKeys, createRule, deleteRule, updateRule, useApprovalRules } from './queries.js';
import type { ApprovalRule, ApproverRole, RuleScope } from './types.js';
import './approvals.css';

const FORM_FIELDS = ['name', 'scope', 'scopeId', 'approverRoles', 'approverUserIds', 'reapproveOnEdit'] as const;
const SCOPES: { value: RuleScope; label: string }[] = [
  { value: 'organization', label: 'Every channel of the organisation' },
  { value: 'channel', label: 'One channel' },
  { value: 'customer', label: 'The channels of one client group' },
];
const APPROVER_ROLES: { value: ApproverRole; label: string }[] = [
  { value: 'owner', label: 'Owners' },
  { value: 'admin', label: 'Admins' },
  { value: 'member', label: 'Members' },
];

/** The organisation's members (the same read as Settings → Members): who can be named as an approver. */
function useMembers() {
  return useQuery({ queryKey: ['members'], queryFn: () => unwrap(api.GET('/members')), staleTime: 60_000 });
}

function RuleForm({ rule, onSaved, onCancel }: { rule?: ApprovalRule; onSaved: () => void; onCancel: () => void }) {
  const integrations = useIntegrations();
  const groups = useGroups();
  const members = useMembers();
  const [name, setName] = useState(rule?.name ?? '');
  const [scope, setScope] = useState<RuleScope>(rule?.scope ?? 'organization');
  const [scopeId, setScopeId] = useState(rule?.scopeId ?? '');
  const [roles, setRoles] = useState<ApproverRole[]>(rule?.approverRoles ?? ['owner', 'admin']);
  const [users, setUsers] = useState<string[]>(rule?.approverUserIds ?? []);
  const [reapprove, setReapprove] = useState(rule?.reapproveOnEdit ?? true);

  const { save, submit } = useFormSave(() => {
    const changes = { name: name.trim(), approverRoles: roles, approverUserIds: users, reapproveOnEdit: reapprove };
    // a rule's scope stays what it was made with (the API changes everything else)
    if (rule) return updateRule(rule.id, changes);
    return createRule({ ...changes, scope, ...(scope !== 'organization' && scopeId ? { scopeId } : {}) });
  }, onSaved);

  return (
    <form className="rule-form" onSubmit={submit} noValidate>
      <Field label="Name" hint="Shown to people whose posts it holds, e.g. “Client sign-off”." error={fieldError(save.error, 'name')}>
        {(p) => <TextInput {...p} value={name} maxLength={100} required autoComplete="off" onChange={(e) => setName(e.target.value)} />}
      </Field>
      <Field label="Applies to" hint={rule ? 'What a rule applies to stays as it was made: to change it, make a new rule.' : undefined} error={fieldError(save.error, 'scope')}>
        {(p) => (
          <select
            {...p}
            disabled={Boolean(rule)}
            value={scope}
            onChange={(e) => {
              setScope(e.target.value as RuleScope);
              setScopeId('');
            }}
          >
            {SCOPES.map((s) => (
              <option key={s.value} value={s.value}>
                {s.label}
              </option>
            ))}
          </select>
        )}
      </Field>
      {scope === 'channel' ? (
        <Field label="Channel" error={fieldError(save.error, 'scopeId')}>
          {(p) => (
            <select {...p} value={scopeId} required disabled={Boolean(rule)} onChange={(e) => setScopeId(e.target.value)}>
              <option value="">Choose a channel</option>
              {(integrations.data ?? []).map((i) => (
                <option key={i.id} value={i.id}>
                  {i.name} ({platformName(i.identifier)})
                </option>
              ))}
            </select>
          )}
        </Field>
      ) : null}
      {scope === 'customer' ? (
        <Field label="Client group" hint={groups.data?.length === 0 ? 'No client groups yet: group channels on the Channels page.' : undefined} error={fieldError(save.error, 'scopeId')}>
          {(p) => (
            <select {...p} value={scopeId} required disabled={Boolean(rule)} onChange={(e) => setScopeId(e.target.value)}>
              <option value="">Choose a client group</option>
              {(groups.data ?? []).map((g) => (
                <option key={g.id} value={g.id}>
                  {g.name}
                </option>
              ))}
            </select>
          )}
        </Field>
      ) : null}
      <fieldset className="choice-group">
        <legend>Who approves</legend>
        <p className="hint">Anyone with a ticked role, and anyone named below.</p>
        <div className="choice-columns">
          {APPROVER_ROLES.map((r) => (
            <label key={r.value} className="check">
              <input type="checkbox" checked={roles.includes(r.value)} onChange={(e) => setRoles((l) => toggle(l, r.value, e.target.checked))} />
              <span>{r.label}</span>
            </label>
          ))}
        </div>
        {fieldError(save.error, 'approverRoles') ? (
          <p className="error" role="alert">
            {fieldError(save.error, 'approverRoles')}
          </p>
        ) : null}
      </fieldset>
      <fieldset className="choice-group">
        <legend>Named approvers</legend>
        {members.data ? (
          <div className="choice-columns">
            {members.data.members.map((m) => (
              <label key={m.userId} className="check">
                <input type="checkbox" checked={users.includes(m.userId)} onChange={(e) => setUsers((l) => toggle(l, m.userId, e.target.checked))} />
                <span>
                  {m.name || m.email}
                  <span className="check-hint">{m.email}</span>
                </span>
              </label>
            ))}
          </div>
        ) : (
          <p className="hint">{members.error ? 'The members could not be loaded.' : 'Loading members…'}</p>
        )}
        {fieldError(save.error, 'approverUserIds') ? (
          <p className="error" role="alert">
            {fieldError(save.error, 'approverUserIds')}
          </p>
        ) : null}
      </fieldset>
      <label className="check">
        <input type="checkbox" checked={reapprove} onChange={(e) => setReapprove(e.target.checked)} />
        <span>
          Edits by others send it back for approval
          <span className="check-hint">An approved post that someone other than an approver changes waits for approval again.</span>
        </span>
      </label>
      <FormFooter error={save.error} fields={FORM_FIELDS} pending={save.isPending} onCancel={onCancel} submitLabel={rule ? 'Save changes' : 'Create rule'} />
    </form>
  );
}

/** Settings → Approval rules: which channels need an approver's yes before a post is queued, and whose. */
export function ApprovalRulesSettings() {
  const queryClient = useQueryClient();
  const canManage = useCanManage();
  const rules = useApprovalRules();
  const integrations = useIntegrations();
  const groups = useGroups();
  const members = useMembers();

  function scopeText(r: ApprovalRule): string {
    if (r.scope === 'organization') return 'Every channel';
    if (r.scope === 'channel') {
      const c = integrations.data?.find((i) => i.id === r.scopeId);
      return c ? `Channel ${c.name}` : 'A removed channel';
    }
    const g = groups.data?.find((x) => x.id === r.scopeId);
    return g ? `Client group ${g.name}` : 'A removed client group';
  }

  function approversText(r: ApprovalRule): string {
    const roleNames = APPROVER_ROLES.filter((x) => r.approverRoles.includes(x.value)).map((x) => x.label.toLowerCase());
    const people = r.approverUserIds.map((id) => {
      const m = members.data?.members.find((x) => x.userId === id);
      return m ? m.name || m.email : 'a former member';
    });
    return [...roleNames, ...people].join(', ') || 'nobody yet';
  }

  return (
    <>
      {!canManage ? <Notice>Only owners and admins create and change approval rules.</Notice> : null}
      <NamedItemsSection
        title="Approval rules"
        description="A post on a channel a rule covers waits for an approver before it is queued: its author submits it for approval, and an approver approves it or asks for changes (Approvals page)."
        noun="rule"
        plural="approval rules"
        query={rules}
        empty={<p>Without a rule, anyone who can post schedules directly.</p>}
        details={(r) => (
          <dl className="rule-facts">
            <dt>Applies to</dt>
            <dd>{scopeText(r)}</dd>
            <dt>Approvers</dt>
            <dd>{approversText(r)}</dd>
            <dt>Edits by others</dt>
            <dd>{r.reapproveOnEdit ? 'send it back for approval' : 'keep the approval'}</dd>
          </dl>
        )}
        deleteNote={<p>Posts on its channels no longer need this rule’s approval.</p>}
        onDelete={(r) => deleteRule(r.id)}
        onChanged={() => queryClient.invalidateQueries({ queryKey: approvalKeys.all })}
        form={({ item, onCancel, onSaved }) => <RuleForm rule={item} onCancel={onCancel} onSaved={onSaved} />}
      />
    </>
  );
}
