import { useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useEffect, useMemo, useRef, useState, type FormEvent } from 'react';
import { api, ApiFailure, unwrap } from '../../api/client.js';
import { queryKeys, usePlatforms, type Integration, type PlatformIdentifier, type PlatformReadiness } from '../../api/queries.js';
import { Button, ErrorNotice, Field, Modal, Notice, Spinner, TextInput } from '../../components/ui.js';
import { PLATFORM_NAMES, platformName } from '../../lib/platforms.js';
import { instanceFromProfile, INSTANCE_OAUTH, openConnectWindow, useConnectMessages } from './connect.js';
import { PlatformMark } from './PlatformMark.js';
import { PlatformSetup } from './PlatformSetup.js';
import { useConnectSandbox } from '../sandbox/queries.js';
import '../sandbox/sandbox.css';

// The JSON-Schema form library loads only when a credential form is shown.
const CredentialsForm = lazy(() => import('./CredentialsForm.js').then((m) => ({ default: m.CredentialsForm })));

const PLATFORMS = (Object.keys(PLATFORM_NAMES) as PlatformIdentifier[]).sort((a, b) => platformName(a).localeCompare(platformName(b)));

type Step =
  | { kind: 'choose' }
  | { kind: 'instance'; platform: PlatformIdentifier; error?: string }
  | { kind: 'setup'; platform: PlatformIdentifier; readiness: PlatformReadiness }
  | { kind: 'starting'; platform: PlatformIdentifier }
  | { kind: 'unavailable'; platform: PlatformIdentifier; error: unknown }
  | { kind: 'credentials'; platform: PlatformIdentifier; schema: Record<string, unknown> }
  | { kind: 'waiting'; platform: PlatformIdentifier; url: string; blocked: boolean; closed: boolean }
  | { kind: 'failed'; platform: PlatformIdentifier; message: string }
  | { kind: 'done'; platform: PlatformIdentifier; name: string; profile: string | null; sandbox?: boolean };

/**
 * Connecting a channel (or reconnecting one that needs it, `reconnect`): pick the platform, then
 * either approve Tidings at the platform in a popup (OAuth; the callback page tells this window
 * when it is done) or fill in the platform's credential form (checked by the API with the
 * platform before anything is saved).
 */
export function ConnectDialog({ open, onOpenChange, reconnect }: { open: boolean; onOpenChange: (open: boolean) => void; reconnect?: Integration }) {
  // wide while the platforms are listed, a form's width after
  const [picking, setPicking] = useState(true);
  return (
    <Modal
      open={open}
      onOpenChange={onOpenChange}
      title={reconnect ? `Reconnect ${reconnect.name}` : 'Connect a channel'}
      description={reconnect ? `Sign in to ${platformName(reconnect.identifier)} again as ${reconnect.profile ?? reconnect.name}; the channel keeps its posts and settings.` : undefined}
      wide={!reconnect && picking}
    >
      {open ? <ConnectFlow reconnect={reconnect} onClose={() => onOpenChange(false)} onPicking={setPicking} /> : null}
    </Modal>
  );
}

function ConnectFlow({ reconnect, onClose, onPicking }: { reconnect?: Integration; onClose: () => void; onPicking: (picking: boolean) => void }) {
  const queryClient = useQueryClient();
  const [step, setStep] = useState<Step>({ kind: 'choose' });
  const picking = step.kind === 'choose';
  useEffect(() => onPicking(picking), [picking, onPicking]);
  useEffect(() => () => onPicking(true), [onPicking]);
  const [instanceUrl, setInstanceUrl] = useState(() => (reconnect ? instanceFromProfile(reconnect.profile) : ''));
  const popup = useRef<Window | null>(null);
  const refresh = reconnect?.id;

  const refetchChannels = () => queryClient.invalidateQueries({ queryKey: queryKeys.integrations });
  const connectSandbox = useConnectSandbox();

  /** A sandbox channel of the platform: connected at once inside Tidings, nothing to approve anywhere. */
  async function sandbox(platform: PlatformIdentifier) {
    setStep({ kind: 'starting', platform });
    try {
      const saved = await connectSandbox.mutateAsync({ identifier: platform });
      setStep({ kind: 'done', platform, name: saved.name, profile: saved.profile, sandbox: true });
    } catch (e) {
      setStep({ kind: 'unavailable', platform, error: e });
    }
  }

  async function begin(platform: PlatformIdentifier, instance?: string) {
    setStep({ kind: 'starting', platform });
    try {
      const query = { ...(refresh ? { refresh } : {}), ...(instance !== undefined ? { instanceUrl: instance } : {}) };
      const answer = await unwrap(api.GET('/social/{identifier}', { params: { path: { identifier: platform }, query } }));
      if (answer.url) {
        popup.current = openConnectWindow(answer.url);
        popup.current?.focus();
        setStep({ kind: 'waiting', platform, url: answer.url, blocked: popup.current === null, closed: false });
      } else if (answer.credentials) {
        setStep({ kind: 'credentials', platform, schema: answer.credentials });
      } else {
        setStep({ kind: 'unavailable', platform, error: new Error(`${platformName(platform)} gave nothing to connect with.`) });
      }
    } catch (e) {
      const onInstance = e instanceof ApiFailure ? e.body.fields?.find((f) => f.path === 'instanceUrl') : undefined;
      if (onInstance) setStep({ kind: 'instance', platform, error: onInstance.message });
      else setStep({ kind: 'unavailable', platform, error: e });
    }
  }

  function choose(platform: PlatformIdentifier, readiness?: PlatformReadiness) {
    if (readiness && !readiness.ready) setStep({ kind: 'setup', platform, readiness });
    else if (INSTANCE_OAUTH.has(platform)) setStep({ kind: 'instance', platform });
    else void begin(platform);
  }

  // A reconnect knows its platform.
  const started = useRef(false);
  useEffect(() => {
    if (!reconnect || started.current) return;
    started.current = true;
    choose(reconnect.identifier);
  });

  // The callback page's answer (the page-level listener refetches the list as well).
  const waitingFor = step.kind === 'waiting' ? step.platform : null;
  useConnectMessages((m) => {
    if (!waitingFor || m.identifier !== waitingFor) return;
    void refetchChannels();
    if (m.type === 'tidings:connected') setStep({ kind: 'done', platform: waitingFor, name: m.integration.name, profile: m.integration.profile });
    else setStep({ kind: 'failed', platform: waitingFor, message: m.message });
  });

  // The popup closed without a word (the person gave up, or the platform's page cut the link):
  // the list is read again, and after a moment the dialog says so.
  const watching = step.kind === 'waiting' && !step.closed;
  useEffect(() => {
    if (!watching) return;
    let grace: ReturnType<typeof setTimeout> | undefined;
    const timer = setInterval(() => {
      if (!popup.current?.closed) return;
      clearInterval(timer);
      void refetchChannels();
      grace = setTimeout(() => setStep((s) => (s.kind === 'waiting' ? { ...s, closed: true } : s)), 1500);
    }, 400);
    const onFocus = () => void refetchChannels();
    window.addEventListener('focus', onFocus);
    return () => {
      clearInterval(timer);
      if (grace) clearTimeout(grace);
      window.removeEventListener('focus', onFocus);
    };
  }, [watching]);

  // Leaving the dialog while a popup is open closes the popup.
  useEffect(() => () => {
    if (popup.current && !popup.current.closed) popup.current.close();
  }, []);

  const back = reconnect ? null : (
    <Button variant="secondary" onClick={() => setStep({ kind: 'choose' })}>
      Choose another platform
    </Button>
  );

  switch (step.kind) {
    case 'choose':
      return reconnect ? <Spinner label="Starting" /> : <PlatformPicker onChoose={choose} onSandbox={(p) => void sandbox(p)} />;

    case 'starting':
      return (
        <p className="ch-flow-status">
          <Spinner label={`Asking ${platformName(step.platform)}`} /> Preparing the connection to {platformName(step.platform)}…
        </p>
      );

    case 'instance': {
      const submit = (e: FormEvent) => {
        e.preventDefault();
        void begin(step.platform, instanceUrl);
      };
      return (
        <form onSubmit={submit} className="ch-flow" noValidate>
          <FlowHead platform={step.platform} />
          <Field label={`Your ${platformName(step.platform)} server`} hint="The address of the server your account is on, e.g. https://mastodon.social" error={step.error}>
            {(p) => <TextInput {...p} type="url" inputMode="url" autoComplete="url" placeholder="https://mastodon.social" value={instanceUrl} onChange={(e) => setInstanceUrl(e.target.value)} required />}
          </Field>
          <div className="ch-dialog-actions">
            {back}
            <Button type="submit">Continue</Button>
          </div>
        </form>
      );
    }

    case 'setup':
      return (
        <div className="ch-flow">
          <FlowHead platform={step.platform} />
          <PlatformSetup platform={step.readiness} />
          <div className="ch-dialog-actions">{back}</div>
        </div>
      );

    case 'unavailable':
      return (
        <div className="ch-flow">
          <FlowHead platform={step.platform} />
          <ErrorNotice error={step.error} />
          <div className="ch-dialog-actions">
            {back ?? (
              <Button variant="secondary" onClick={onClose}>
                Close
              </Button>
            )}
          </div>
        </div>
      );

    case 'credentials':
      return (
        <div className="ch-flow">
          <FlowHead platform={step.platform} />
          <p className="hint">Tidings checks these with {platformName(step.platform)} before saving them; they are stored encrypted and never shown again.</p>
          <Suspense fallback={<Spinner label="Loading the form" />}>
            <CredentialsForm
              credentials={step.schema}
              submitLabel={reconnect ? 'Reconnect' : 'Connect'}
              secondary={back}
              onSubmit={async (body) => {
                const saved = await unwrap(
                  api.POST('/social/{identifier}', { params: { path: { identifier: step.platform }, query: refresh ? { refresh } : {} }, body }),
                );
                await refetchChannels();
                setStep({ kind: 'done', platform: step.platform, name: saved.name, profile: saved.profile });
              }}
            />
          </Suspense>
        </div>
      );

    case 'waiting': {
      const name = platformName(step.platform);
      return (
        <div className="ch-flow">
          <FlowHead platform={step.platform} />
          {step.closed ? (
            <Notice>
              The {name} window was closed before it reported back. If you approved Tidings there, the channel is in the list now; otherwise try again.
            </Notice>
          ) : step.blocked ? (
            <Notice>Your browser blocked the {name} window. Open it in a new tab to approve Tidings; this dialog updates when you are done.</Notice>
          ) : (
            <p className="ch-flow-status" role="status">
              <Spinner label="Waiting" /> Approve Tidings in the {name} window. This dialog updates when you are back.
            </p>
          )}
          <div className="ch-dialog-actions">
            {back}
            {step.closed ? (
              <Button onClick={() => (reconnect ? choose(step.platform) : void begin(step.platform, INSTANCE_OAUTH.has(step.platform) ? instanceUrl : undefined))}>Try again</Button>
            ) : step.blocked ? (
              <a className="btn btn-primary" href={step.url} target="_blank" rel="opener">
                Open {name} in a new tab
              </a>
            ) : (
              <Button
                variant="secondary"
                onClick={() => {
                  if (popup.current && !popup.current.closed) popup.current.focus();
                  else popup.current = openConnectWindow(step.url);
                }}
              >
                Show the {name} window
              </Button>
            )}
          </div>
        </div>
      );
    }

    case 'failed':
      return (
        <div className="ch-flow">
          <FlowHead platform={step.platform} />
          <Notice kind="bad">{step.message}</Notice>
          <div className="ch-dialog-actions">
            {back}
            <Button onClick={() => choose(step.platform)}>Try again</Button>
          </div>
        </div>
      );

    case 'done':
      return (
        <div className="ch-flow">
          <Notice kind="ok">
            {reconnect ? 'Reconnected' : 'Connected'}: <strong>{step.name}</strong>
            {step.profile ? ` (${step.profile})` : ''} on {platformName(step.platform)}
            {step.sandbox ? `: a sandbox channel, whose posts go to Tidings' simulation of ${platformName(step.platform)}, never the real one` : ''}.
          </Notice>
          <div className="ch-dialog-actions">
            {reconnect ? null : (
              <Button variant="secondary" onClick={() => setStep({ kind: 'choose' })}>
                Connect another
              </Button>
            )}
            <Button onClick={onClose}>Done</Button>
          </div>
        </div>
      );
  }
}

function FlowHead({ platform }: { platform: PlatformIdentifier }) {
  return (
    <div className="ch-flow-head">
      <PlatformMark identifier={platform} size={36} />
      <h3>{platformName(platform)}</h3>
    </div>
  );
}

/**
 * The 34 platforms, filterable by name: those ready on this deployment first, then those that
 * need the deployment's app at the platform ("Needs setup": choosing one says what to register).
 * Until the server has said which are ready (or if it cannot), every platform is offered.
 */
function PlatformPicker({ onChoose, onSandbox }: { onChoose: (p: PlatformIdentifier, readiness?: PlatformReadiness) => void; onSandbox: (p: PlatformIdentifier) => void }) {
  const [filter, setFilter] = useState('');
  const platforms = usePlatforms();
  const readiness = useMemo(() => new Map((platforms.data ?? []).map((p) => [p.identifier, p])), [platforms.data]);
  const { ready, needsSetup } = useMemo(() => {
    const f = filter.trim().toLowerCase();
    const shown = f ? PLATFORMS.filter((p) => platformName(p).toLowerCase().includes(f) || p.includes(f)) : PLATFORMS;
    return { ready: shown.filter((p) => readiness.get(p)?.ready !== false), needsSetup: shown.filter((p) => readiness.get(p)?.ready === false) };
  }, [filter, readiness]);
  const item = (p: PlatformIdentifier) => {
    const r = readiness.get(p);
    const blocked = r !== undefined && !r.ready;
    return (
      <li key={p} className={r?.sandbox ? 'ch-platform-row' : undefined}>
        <button type="button" className={`ch-platform${blocked ? ' ch-platform-setup' : ''}`} onClick={() => onChoose(p, r)}>
          <PlatformMark identifier={p} size={30} />
          <span className="ch-platform-text">
            <span className="ch-platform-name">{platformName(p)}</span>
            {blocked ? <span className="ch-badge-setup">{r.setup ? 'Needs setup' : 'Unavailable'}</span> : null}
          </span>
        </button>
        {/* a sandbox channel needs no app at the platform: offered even where the platform needs setup */}
        {r?.sandbox ? (
          <button
            type="button"
            className="btn btn-secondary ch-sandbox-connect"
            aria-label={`Sandbox ${platformName(p)} channel: connect one`}
            title={`A ${platformName(p)} channel simulated inside Tidings: try posting, media and failures; nothing reaches ${platformName(p)}`}
            onClick={() => onSandbox(p)}
          >
            Sandbox
          </button>
        ) : null}
      </li>
    );
  };
  return (
    <div className="ch-flow">
      <Field label="Find a platform">{(p) => <TextInput {...p} type="search" value={filter} onChange={(e) => setFilter(e.target.value)} placeholder="e.g. Bluesky" autoFocus />}</Field>
      {platforms.isPending ? <Spinner label="Checking which platforms are set up" /> : null}
      {ready.length + needsSetup.length === 0 ? <p className="hint">No platform is called that.</p> : null}
      {ready.length > 0 ? (
        <ul className="ch-platforms" aria-label={needsSetup.length > 0 ? 'Ready to connect' : 'Platforms'}>
          {ready.map(item)}
        </ul>
      ) : null}
      {needsSetup.length > 0 ? (
        <section className="ch-platforms-setup" aria-labelledby="ch-needs-setup">
          <h3 id="ch-needs-setup">Needs setup on this server</h3>
          <p className="hint">These platforms need this server's own app registered at the platform before anyone can connect them.</p>
          <ul className="ch-platforms" aria-label="Needs setup">
            {needsSetup.map(item)}
          </ul>
        </section>
      ) : null}
    </div>
  );
}
