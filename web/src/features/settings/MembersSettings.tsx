import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, unwrap } from '../../api/client.js';
import { useCanManage, useMe } from '../../api/session.js';
import { Button, EmptyState, ErrorNotice, Field, Notice, Spinner, TextInput } from '../../components/ui.js';
import { ConfirmButton, LoadError, Section, ShownOnce, When } from './common.js';
import { fieldError, onlyFieldErrors } from './errors.js';
import { ROLE_LABEL, ROLES, settingsKeys, type CreatedInvitation, type Member, type Role } from './types.js';

/**
 * The roles offered: the API's, with `contributor` (issue 31: writes and submits posts for approval,
 * never queues them itself), which the generated API types do not list yet.
 */
type RoleChoice = Role | 'contributor';
const ROLE_CHOICES: readonly RoleChoice[] = [...new Set<RoleChoice>([...ROLES, 'contributor'])];
const CHOICE_LABEL: Record<RoleChoice, string> = { ...ROLE_LABEL, contributor: 'Contributor' };

function useMembers() {
  return useQuery({ queryKey: settingsKeys.members, queryFn: () => unwrap(api.GET('/members')) });
}

/** A member's role: a choice for owners and admins (the API decides what each may change), text for others. */
function RoleCell({ member, editable, myRole }: { member: Member; editable: boolean; myRole: Role }) {
  const queryClient = useQueryClient();
  const change = useMutation({
    mutationFn: (role: Role) => unwrap(api.PUT('/members/{userId}', { params: { path: { userId: member.userId } }, body: { role } })),
    onSettled: () => queryClient.invalidateQueries({ queryKey: settingsKeys.members }),
  });
  if (!editable) return <span className={`badge role-${member.role}`}>{CHOICE_LABEL[member.role]}</span>;
  return (
    <div>
      <label className="visually-hidden" htmlFor={`role-${member.userId}`}>
        Role of {member.name || member.email}
      </label>
      <select id={`role-${member.userId}`} className="role-select" value={change.isPending && change.variables ? change.variables : member.role} disabled={change.isPending} onChange={(e) => change.mutate(e.target.value as Role)}>
        {ROLE_CHOICES.map((r) => (
          // only owners make or unmake owners (the API refuses otherwise; the choice is not offered)
          <option key={r} value={r} disabled={myRole !== 'owner' && (r === 'owner' || member.role === 'owner')}>
            {CHOICE_LABEL[r]}
          </option>
        ))}
      </select>
      {change.error ? <ErrorNotice error={change.error} /> : null}
    </div>
  );
}

function InviteForm({ onInvited }: { onInvited: (made: CreatedInvitation) => void }) {
  const myRole = useMe().organization.role;
  const queryClient = useQueryClient();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('member');
  const invite = useMutation({
    mutationFn: () => {
      const address = email.trim();
      const body = { role, ...(address ? { email: address } : {}) };
      return unwrap(api.POST('/invitations', { body }));
    },
    onSuccess: (made) => {
      setEmail('');
      onInvited(made);
      return queryClient.invalidateQueries({ queryKey: settingsKeys.members });
    },
  });
  function submit(e: FormEvent) {
    e.preventDefault();
    invite.mutate();
  }
  return (
    <form className="card settings-form inline-form" onSubmit={submit} noValidate>
      <Field label="Email (optional)" hint="Only this address can accept; it is emailed when mail is set up. Leave empty for a link anyone can use once." error={fieldError(invite.error, 'email')}>
        {(p) => <TextInput {...p} type="email" value={email} autoComplete="off" placeholder="name@example.com" onChange={(e) => setEmail(e.target.value)} />}
      </Field>
      <Field label="Role" error={fieldError(invite.error, 'role')}>
        {(p) => (
          <select {...p} value={role} onChange={(e) => setRole(e.target.value as Role)}>
            {ROLE_CHOICES.map((r) => (
              <option key={r} value={r} disabled={r === 'owner' && myRole !== 'owner'}>
                {CHOICE_LABEL[r]}
              </option>
            ))}
          </select>
        )}
      </Field>
      <div className="form-actions">
        <Button type="submit" disabled={invite.isPending}>
          {invite.isPending ? 'Inviting…' : 'Create invitation'}
        </Button>
      </div>
      {invite.error && !onlyFieldErrors(invite.error, ['email', 'role']) ? <ErrorNotice error={invite.error} /> : null}
    </form>
  );
}

/** Members with their roles, open invitations and new invitations (owners and admins change; others read). */
export function MembersSettings() {
  const me = useMe();
  const canManage = useCanManage();
  const queryClient = useQueryClient();
  const members = useMembers();
  const [made, setMade] = useState<CreatedInvitation | null>(null);
  const invalidate = () => queryClient.invalidateQueries({ queryKey: settingsKeys.members });

  async function remove(userId: string) {
    await unwrap(api.DELETE('/members/{userId}', { params: { path: { userId } } }));
    if (userId === me.user.id) {
      // you left: everything the app holds belonged to this organisation
      window.location.assign('/');
      return;
    }
    await invalidate();
  }

  if (members.isPending) return <Spinner label="Loading members" />;
  if (members.error) return <LoadError error={members.error} what="members" />;
  const { members: people, invitations } = members.data;

  return (
    <>
      <Section
        title="Members"
        description={
          canManage
            ? `People who work in ${me.organization.name}. Owners change any role; admins move people between member and admin.`
            : `People who work in ${me.organization.name}. Only owners and admins change roles or invite; you are a ${CHOICE_LABEL[me.organization.role].toLowerCase()}.`
        }
      >
        <div className="table-wrap">
          <table className="table">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Email</th>
                <th scope="col">Role</th>
                <th scope="col">Member since</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {people.map((m) => {
                const self = m.userId === me.user.id;
                const who = m.name || m.email;
                return (
                  <tr key={m.userId}>
                    <td>
                      {m.name || <span className="muted">(no name)</span>} {self ? <span className="badge">you</span> : null}
                    </td>
                    <td>{m.email}</td>
                    <td>
                      <RoleCell member={m} editable={canManage && !self} myRole={me.organization.role} />
                    </td>
                    <td>
                      <When iso={m.since} opts={{ dateStyle: 'medium' }} />
                    </td>
                    <td className="actions">
                      {self ? (
                        <ConfirmButton label="Leave" ariaLabel={`Leave ${me.organization.name}`} title={`Leave ${me.organization.name}?`} confirmLabel="Leave the organisation" onConfirm={() => remove(m.userId)}>
                          <p>You will lose access to its channels, posts and settings. Apps you approved for it lose their access too. Someone must invite you again to come back.</p>
                        </ConfirmButton>
                      ) : canManage ? (
                        <ConfirmButton label="Remove" ariaLabel={`Remove ${who}`} title={`Remove ${who}?`} confirmLabel="Remove member" onConfirm={() => remove(m.userId)}>
                          <p>
                            {who} ({m.email}) will lose access to {me.organization.name} at once, and the apps they approved for it lose theirs.
                          </p>
                        </ConfirmButton>
                      ) : null}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      </Section>

      {canManage ? (
        <>
          <Section title="Invite someone" description="An invitation link works once, for 7 days.">
            {made ? (
              <ShownOnce
                title={made.invitation.email ? `Invitation for ${made.invitation.email}` : 'Invitation link'}
                label="Invitation link"
                secret={made.link}
                warning={
                  <>
                    This link is shown only now. {made.mailed ? `It was also emailed to ${made.invitation.email}.` : made.invitation.email ? 'Mail is not set up on this server: send it yourself.' : 'Send it to the person you invite.'} Whoever opens it joins as{' '}
                    {CHOICE_LABEL[made.invitation.role].toLowerCase()}.
                  </>
                }
                onDone={() => setMade(null)}
              />
            ) : (
              <InviteForm onInvited={setMade} />
            )}
          </Section>
          <Section title="Open invitations">
            {invitations.length === 0 ? (
              <EmptyState title="No open invitations" />
            ) : (
              <div className="table-wrap">
                <table className="table">
                  <thead>
                    <tr>
                      <th scope="col">For</th>
                      <th scope="col">Role</th>
                      <th scope="col">Sent</th>
                      <th scope="col">Expires</th>
                      <th scope="col">
                        <span className="visually-hidden">Actions</span>
                      </th>
                    </tr>
                  </thead>
                  <tbody>
                    {invitations.map((i) => (
                      <tr key={i.id}>
                        <td>{i.email ?? <span className="muted">Anyone with the link</span>}</td>
                        <td>{CHOICE_LABEL[i.role]}</td>
                        <td>
                          <When iso={i.createdAt} />
                        </td>
                        <td>
                          <When iso={i.expiresAt} />
                        </td>
                        <td className="actions">
                          <ConfirmButton
                            label="Revoke"
                            ariaLabel={`Revoke the invitation ${i.email ? `for ${i.email}` : `sent ${i.createdAt}`}`}
                            title="Revoke this invitation?"
                            confirmLabel="Revoke invitation"
                            onConfirm={async () => {
                              await unwrap(api.DELETE('/invitations/{id}', { params: { path: { id: i.id } } }));
                              await invalidate();
                            }}
                          >
                            <p>The link stops working at once{i.email ? ` (it was for ${i.email})` : ''}.</p>
                          </ConfirmButton>
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
          </Section>
        </>
      ) : (
        <Notice>Only owners and admins can invite people. Ask one of them for an invitation link.</Notice>
      )}
    </>
  );
}
