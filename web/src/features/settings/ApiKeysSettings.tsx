import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, API_BASE, unwrap } from '../../api/client.js';
import { useMe } from '../../api/session.js';
import { Button, EmptyState, ErrorNotice, Field, Spinner, TextInput } from '../../components/ui.js';
import { ConfirmButton, LoadError, Section, ShownOnce, When } from './common.js';
import { fieldError, onlyFieldErrors } from './errors.js';
import { settingsKeys, type ApiKey, type CreatedApiKey } from './types.js';
import { setKeyExempt } from '../approvals/queries.js';

/** "Exempt from approval" (issue 31): the key's posts skip approval rules and queue directly. Owners change it. */
function ExemptToggle({ apiKey }: { apiKey: ApiKey }) {
  const queryClient = useQueryClient();
  const isOwner = useMe().organization.role === 'owner';
  const exempt = apiKey.approvalExempt;
  const change = useMutation({
    mutationFn: (on: boolean) => setKeyExempt(apiKey.id, on),
    onSettled: () => queryClient.invalidateQueries({ queryKey: settingsKeys.apiKeys }),
  });
  return (
    <>
      <label className="check exempt-toggle" title={isOwner ? 'Its posts skip approval rules and are queued directly' : 'Only owners change this'}>
        <input type="checkbox" checked={change.isPending && change.variables !== undefined ? change.variables : exempt} disabled={!isOwner || change.isPending} onChange={(e) => change.mutate(e.target.checked)} />
        <span>
          Exempt<span className="visually-hidden"> {apiKey.name} from approval</span>
        </span>
      </label>
      {change.error ? <ErrorNotice error={change.error} /> : null}
    </>
  );
}

/** The organisation's API keys: list, create (the key shown once), revoke. Owners and admins. */
export function ApiKeysSettings() {
  const me = useMe();
  const queryClient = useQueryClient();
  const keys = useQuery({ queryKey: settingsKeys.apiKeys, queryFn: () => unwrap(api.GET('/api-keys')) });
  const [name, setName] = useState('');
  const [sandbox, setSandbox] = useState(false);
  // the new key lives only here, until "Done": the list (and the cache) never hold it
  const [made, setMade] = useState<CreatedApiKey | null>(null);
  const create = useMutation({
    mutationFn: (input: { name: string; sandbox: boolean }) => unwrap(api.POST('/api-keys', { body: input })),
    onSuccess: (created) => {
      setMade(created);
      setName('');
      setSandbox(false);
      return queryClient.invalidateQueries({ queryKey: settingsKeys.apiKeys });
    },
  });

  function submit(e: FormEvent) {
    e.preventDefault();
    create.mutate({ name: name.trim(), sandbox });
  }

  const origin = window.location.origin;

  return (
    <>
      <Section
        title="API keys"
        description={
          <>
            Scripts, the Postiz CLI and other tools use an API key to act for <strong>{me.organization.name}</strong> through the public API at{' '}
            <code>
              {origin}
              {API_BASE}
            </code>
            , sending it as the <code>Authorization</code> header (the key alone, no “Bearer”).
          </>
        }
      />
      <div className="notice notice-info budget-note">
        <strong>Rate limits.</strong> This app’s own calls count against a budget of your own, per person, so working here never uses up the organisation’s allowance. Calls made with API keys (and by approved apps) share the organisation’s plan limit; past it they
        get 429 with a <code>Retry-After</code>.
      </div>

      {keys.error ? (
        <LoadError error={keys.error} what="API keys" />
      ) : (
        <>
          <Section title="Create a key">
            {made ? (
              <ShownOnce
                title={`New key “${made.key.name}”`}
                label="API key"
                secret={made.apiKey}
                warning="Copy this key now: it is shown only once. Tidings keeps only a fingerprint of it and cannot show it again; if it is lost, revoke it and create another."
                onDone={() => setMade(null)}
              >
                <p className="hint">
                  Try it: <code>curl -H "Authorization: $TIDINGS_API_KEY" {origin}
                  {API_BASE}/integrations</code>
                </p>
              </ShownOnce>
            ) : (
              <form className="card settings-form inline-form" onSubmit={submit} noValidate>
                <Field label="Key name" hint="What uses it, e.g. “Nightly import script”." error={fieldError(create.error, 'name')}>
                  {(p) => <TextInput {...p} value={name} maxLength={200} required autoComplete="off" onChange={(e) => setName(e.target.value)} />}
                </Field>
                <label className="check">
                  <input type="checkbox" checked={sandbox} onChange={(e) => setSandbox(e.target.checked)} />
                  <span>
                    Sandbox key (<code>tdk_test_…</code>): it sees and posts to sandbox channels only, never a live one
                  </span>
                </label>
                <div className="form-actions">
                  <Button type="submit" disabled={create.isPending || !name.trim()}>
                    {create.isPending ? 'Creating…' : 'Create key'}
                  </Button>
                </div>
                {create.error && !onlyFieldErrors(create.error, ['name']) ? <ErrorNotice error={create.error} /> : null}
              </form>
            )}
          </Section>

          <Section title="Keys in use">
            {keys.isPending ? (
              <Spinner label="Loading API keys" />
            ) : keys.data.length === 0 ? (
              <EmptyState title="No API keys yet">
                <p>Create one above to use the API from a script.</p>
              </EmptyState>
            ) : (
              <div className="table-wrap">
                <table className="table">
                  <thead>
                    <tr>
                      <th scope="col">Name</th>
                      <th scope="col">Key</th>
                      <th scope="col">Created</th>
                      <th scope="col">Last used</th>
                      <th scope="col">Approval</th>
                      <th scope="col">
                        <span className="visually-hidden">Actions</span>
                      </th>
                    </tr>
                  </thead>
                  <tbody>
                    {keys.data.map((k) => (
                      <tr key={k.id}>
                        <td>
                          {k.name}
                          {k.sandbox ? <span className="sandbox-label"> · sandbox</span> : null}
                        </td>
                        <td>
                          <code title="The start of the key, to tell keys apart">{k.prefix}…</code>
                        </td>
                        <td>
                          <When iso={k.createdAt} />
                        </td>
                        <td>
                          <When iso={k.lastUsedAt} empty="Never" />
                        </td>
                        <td>
                          <ExemptToggle apiKey={k} />
                        </td>
                        <td className="actions">
                          <ConfirmButton
                            label="Revoke"
                            ariaLabel={`Revoke ${k.name}`}
                            title={`Revoke “${k.name}”?`}
                            confirmLabel="Revoke key"
                            onConfirm={async () => {
                              await unwrap(api.DELETE('/api-keys/{id}', { params: { path: { id: k.id } } }));
                              await queryClient.invalidateQueries({ queryKey: settingsKeys.apiKeys });
                            }}
                          >
                            <p>
                              Every call made with <code>{k.prefix}…</code> is refused from now on (401). Whatever uses it stops working until you give it a new key.
                            </p>
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
      )}
    </>
  );
}
