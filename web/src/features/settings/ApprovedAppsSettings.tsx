import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client.js';
import { useMe } from '../../api/session.js';
import { EmptyState, Spinner } from '../../components/ui.js';
import { ConfirmButton, LoadError, Section, When } from './common.js';
import { settingsKeys, type ApprovedApp } from './types.js';

function AppLogo({ app }: { app: ApprovedApp }) {
  if (app.logoUrl) return <img className="app-logo" src={app.logoUrl} alt="" width={40} height={40} referrerPolicy="no-referrer" loading="lazy" />;
  return (
    <span className="app-logo app-logo-letter" aria-hidden="true">
      {app.clientName.trim().charAt(0).toUpperCase() || '?'}
    </span>
  );
}

/** The OAuth apps and devices you let act for an organisation: what they may do, since when; revoke. */
export function ApprovedAppsSettings() {
  const me = useMe();
  const queryClient = useQueryClient();
  const apps = useQuery({ queryKey: settingsKeys.approvedApps, queryFn: () => unwrap(api.GET('/approved-apps')) });

  // this organisation's first, then the others you belong to
  const sorted = apps.data ? [...apps.data].sort((a, b) => Number(b.organizationId === me.organization.id) - Number(a.organizationId === me.organization.id)) : [];

  return (
    <Section
      title="Approved apps"
      description={
        <>
          Apps and command-line tools you signed in to with Tidings (OAuth). Each acts for the organisation you chose when you approved it, with the organisation’s plan limits. Revoking stops its tokens at once. To build your own app, register it on{' '}
          <a href="/account/apps">your account’s app page</a>.
        </>
      }
    >
      {apps.isPending ? (
        <Spinner label="Loading approved apps" />
      ) : apps.error ? (
        <LoadError error={apps.error} what="approved apps" />
      ) : sorted.length === 0 ? (
        <EmptyState title="No approved apps">
          <p>When you let an app or the Postiz CLI act for one of your organisations, it is listed here.</p>
        </EmptyState>
      ) : (
        <ul className="app-list">
          {sorted.map((a) => (
            <li key={a.id} className="card app-card">
              <AppLogo app={a} />
              <div className="app-main">
                <h3 className="app-name">
                  {a.clientName} {a.selfRegistered ? <span className="badge badge-muted" title="It registered itself (RFC 7591); nobody on this server vouches for its name">self-registered</span> : null}
                </h3>
                <p className="app-meta">
                  For <strong>{a.organizationName}</strong>
                  {a.organizationId !== me.organization.id ? <span className="muted"> (another of your organisations)</span> : null} · approved <When iso={a.createdAt} /> · last used <When iso={a.lastUsedAt} empty="never" />
                </p>
                <ul className="scope-list" aria-label={`What ${a.clientName} may do`}>
                  {a.scopes.map((s) => (
                    <li key={s.name}>
                      <code>{s.name}</code> {s.description}
                    </li>
                  ))}
                </ul>
              </div>
              <div className="app-actions">
                <ConfirmButton
                  label="Revoke"
                  ariaLabel={`Revoke ${a.clientName}`}
                  title={`Revoke ${a.clientName}?`}
                  confirmLabel="Revoke access"
                  onConfirm={async () => {
                    await unwrap(api.DELETE('/approved-apps/{id}', { params: { path: { id: a.id } } }));
                    await queryClient.invalidateQueries({ queryKey: settingsKeys.approvedApps });
                  }}
                >
                  <p>
                    {a.clientName} can no longer act for {a.organizationName}: its tokens stop working at once. It would have to ask you again.
                  </p>
                </ConfirmButton>
              </div>
            </li>
          ))}
        </ul>
      )}
    </Section>
  );
}
