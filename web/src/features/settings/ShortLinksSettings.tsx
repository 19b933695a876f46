import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import { ApiFailure } from '../../api/client.js';
import { useCanManage } from '../../api/session.js';
import { Button, ErrorNotice, Field, Notice, Spinner, TextInput } from '../../components/ui.js';
import { LoadError, SavedSecretInput, Section } from './common.js';
import { fieldError, onlyFieldErrors } from './errors.js';
import { getShortLinkSettings, linkKeys, putShortLinkSettings, type ShortLinkProviderId, type ShortLinkSettings, type ShortLinkSettingsBody } from './links-ai-api.js';

const FORM_FIELDS = ['provider', 'apiKey', 'domain', 'apiUrl', 'utmTemplate'] as const;

/** The placeholders a UTM template may use, what each becomes, and the value the example shows. */
export const UTM_PLACEHOLDERS = [
  { name: 'platform', meaning: 'the platform (x, linkedin, bluesky…)', example: 'linkedin' },
  { name: 'channel', meaning: 'the channel’s name', example: 'Acme News' },
  { name: 'group', meaning: 'the id of the post’s group (the same on each channel of one post)', example: 'g7Kp2xQ' },
  { name: 'post', meaning: 'the id of the post on that channel', example: 'p41Zt8' },
  { name: 'date', meaning: 'the day it is published (YYYY-MM-DD)', example: '2026-03-14' },
] as const;

const EXAMPLE_URL = 'https://example.com/spring-sale';
const EXAMPLE_VALUES: Record<string, string> = Object.fromEntries(UTM_PLACEHOLDERS.map((p) => [p.name, p.example]));

/**
 * `url` with the UTM template's parameters added, as the service adds them when it makes a link:
 * each `name=value` pair appended (placeholders filled, values form-encoded), except names the
 * URL carries already. Placeholders `values` lacks are left as written, so a typo shows in the example.
 */
export function applyUtmTemplate(url: string, template: string, values: Record<string, string> = EXAMPLE_VALUES): string {
  const query = template.trim().replace(/^[?&]+/, '');
  if (!query) return url;
  let out: URL;
  try {
    out = new URL(url);
  } catch {
    return url;
  }
  for (const part of query.split('&')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const name = part.slice(0, eq);
    if (out.searchParams.has(name)) continue;
    out.searchParams.append(name, part.slice(eq + 1).replace(/\{(\w+)\}/g, (whole, key: string) => values[key] ?? whole));
  }
  return out.toString();
}

/** Placeholders in `template` that are not one of UTM_PLACEHOLDERS. */
export function unknownPlaceholders(template: string): string[] {
  const known = new Set<string>(UTM_PLACEHOLDERS.map((p) => p.name));
  return [...template.matchAll(/\{(\w*)\}/g)].map((m) => m[1]!).filter((n) => !known.has(n));
}

const emptyToNull = (s: string) => (s.trim() === '' ? null : s.trim());

/** The form, filled from what the API answered. */
function ShortLinksForm({ settings, canManage }: { settings: ShortLinkSettings; canManage: boolean }) {
  const id = useId();
  const queryClient = useQueryClient();
  const [provider, setProvider] = useState<ShortLinkProviderId>(settings.provider);
  const [apiKey, setApiKey] = useState('');
  const [domain, setDomain] = useState(settings.domain ?? '');
  const [apiUrl, setApiUrl] = useState(settings.apiUrl ?? '');
  const [utmTemplate, setUtmTemplate] = useState(settings.utmTemplate ?? '');

  const info = settings.providers.find((p) => p.id === provider);
  const outside = provider !== 'builtin';
  // a key is kept only for the provider it was saved for
  const keyKept = settings.hasApiKey && provider === settings.provider;

  const save = useMutation({
    mutationFn: () => {
      const body: ShortLinkSettingsBody = { provider, utmTemplate: emptyToNull(utmTemplate) };
      if (outside) {
        body.domain = emptyToNull(domain);
        body.apiUrl = emptyToNull(apiUrl);
        if (apiKey.trim() !== '') body.apiKey = apiKey.trim();
      }
      return putShortLinkSettings(body);
    },
    onSuccess: (saved) => {
      queryClient.setQueryData(linkKeys.shortLinkSettings, saved);
      setApiKey('');
    },
  });

  // The provider's refusal (422 SHORTENER_REJECTED) is shown by the field it names (in the
  // provider's words), or whole by the key field when it names none.
  const rejectedUnnamed = save.error instanceof ApiFailure && save.error.body.code === 'SHORTENER_REJECTED' && !save.error.body.fields?.length ? save.error.body.message : undefined;
  const errorOf = (path: (typeof FORM_FIELDS)[number]) => fieldError(save.error, path) ?? (path === 'apiKey' ? rejectedUnnamed : undefined);
  const generalError = save.error && !rejectedUnnamed && !onlyFieldErrors(save.error, FORM_FIELDS) ? save.error : null;

  const unknown = unknownPlaceholders(utmTemplate);
  const example = applyUtmTemplate(EXAMPLE_URL, utmTemplate);
  const dirty = () => {
    if (save.error || save.isSuccess) save.reset();
  };

  function submit(e: FormEvent) {
    e.preventDefault();
    save.mutate();
  }

  return (
    <form className="card settings-form short-links-form" onSubmit={submit} noValidate aria-label="Short link settings">
      {!canManage ? <Notice>Only owners and admins can change these settings. You can read them.</Notice> : null}
      <fieldset className="bare-fieldset" disabled={!canManage || save.isPending}>
        <Field
          label="Shortener"
          hint={outside ? `Links are made by ${info?.name ?? provider} with your account there; its click counts are read back.` : `Built in: links are ${settings.builtinBaseUrl.replace(/\/$/, '')}/…, served by Tidings, nothing sent to another service. Clicks by people and fetches by platforms’ crawlers are counted apart.`}
          error={errorOf('provider')}
        >
          {(p) => (
            <select
              {...p}
              className="input"
              value={provider}
              onChange={(e) => {
                setProvider(e.target.value as ShortLinkProviderId);
                dirty();
              }}
            >
              {settings.providers.map((o) => (
                <option key={o.id} value={o.id}>
                  {o.id === 'builtin' ? `${o.name} (no outside service)` : o.name}
                </option>
              ))}
            </select>
          )}
        </Field>

        {outside ? (
          <>
            <Field
              label={`${info?.name ?? 'Provider'} API key`}
              hint={keyKept ? 'A key is saved (it is never shown again). Leave this empty to keep it.' : info?.needsApiKey ? 'Required. It is checked with the provider when you save, and stored sealed.' : 'Optional.'}
              error={errorOf('apiKey')}
            >
              {(p) => (
                <SavedSecretInput
                  {...p}
                  kept={keyKept}
                  value={apiKey}
                  onValue={(v) => {
                    setApiKey(v);
                    dirty();
                  }}
                />
              )}
            </Field>
            <Field label={info?.needsDomain ? 'Short domain' : 'Short domain (optional)'} hint={info?.needsDomain ? `The domain set up in your ${info.name} account, e.g. go.example.com.` : 'A custom domain of your account; empty: the provider’s own.'} error={errorOf('domain')}>
              {(p) => (
                <TextInput
                  {...p}
                  value={domain}
                  autoComplete="off"
                  spellCheck={false}
                  maxLength={253}
                  placeholder="go.example.com"
                  onChange={(e) => {
                    setDomain(e.target.value);
                    dirty();
                  }}
                />
              )}
            </Field>
            <Field label={info?.needsApiUrl ? 'API URL' : 'API URL (optional)'} hint={info?.needsApiUrl ? 'Where your own installation’s API is.' : 'Only for a self-hosted installation; empty: the provider’s public API.'} error={errorOf('apiUrl')}>
              {(p) => (
                <TextInput
                  {...p}
                  type="url"
                  value={apiUrl}
                  autoComplete="off"
                  spellCheck={false}
                  maxLength={2048}
                  placeholder="https://links.example.com"
                  onChange={(e) => {
                    setApiUrl(e.target.value);
                    dirty();
                  }}
                />
              )}
            </Field>
          </>
        ) : null}

        <Field
          label="UTM template"
          hint={
            <>
              Parameters added to every shortened link, as a query string. Empty: links go to their address unchanged. Placeholders:{' '}
              {UTM_PLACEHOLDERS.map((ph, i) => (
                <span key={ph.name}>
                  {i > 0 ? ', ' : ''}
                  <code>{`{${ph.name}}`}</code> {ph.meaning}
                </span>
              ))}
              .
            </>
          }
          error={errorOf('utmTemplate')}
        >
          {(p) => (
            <TextInput
              {...p}
              value={utmTemplate}
              autoComplete="off"
              spellCheck={false}
              maxLength={1000}
              placeholder="utm_source={platform}&utm_medium=social&utm_campaign={group}"
              onChange={(e) => {
                setUtmTemplate(e.target.value);
                dirty();
              }}
            />
          )}
        </Field>
        <div className="utm-example">
          <p className="utm-example-label" id={`${id}-example`}>
            Example: a link to <code>{EXAMPLE_URL}</code> in a post on LinkedIn goes to
          </p>
          <output className="utm-example-url" aria-labelledby={`${id}-example`} data-testid="utm-example">
            {example}
          </output>
          {unknown.length > 0 ? (
            <p className="hint">
              Not a placeholder: {unknown.map((n) => `{${n}}`).join(', ')}. It is left as written.
            </p>
          ) : null}
        </div>
      </fieldset>

      {generalError ? <ErrorNotice error={generalError} /> : null}
      {save.isSuccess ? <Notice kind="ok">Saved. Posts published from now on use these settings.</Notice> : null}
      {canManage ? (
        <div className="form-actions">
          <Button type="submit" disabled={save.isPending}>
            {save.isPending ? (outside ? 'Checking and saving…' : 'Saving…') : 'Save short links'}
          </Button>
        </div>
      ) : null}
    </form>
  );
}

/**
 * Settings → Short links: the organisation's shortener (built in, or Dub, Short.io, Kutt with its
 * key) and UTM template (GET/PUT /short-links/settings). Everyone reads them; owners and admins
 * change them. Posts use them when they are published with short links on.
 */
export function ShortLinksSettings() {
  const canManage = useCanManage();
  const settings = useQuery({ queryKey: linkKeys.shortLinkSettings, queryFn: getShortLinkSettings });
  return (
    <Section
      title="Short links"
      description="When a post is published with short links on, each address in its text is replaced by a short link, made once per post and channel, and its clicks are counted. The platform’s length check counts the shortened text."
    >
      {settings.isPending ? <Spinner label="Loading short link settings" /> : settings.error ? <LoadError error={settings.error} what="short links" /> : <ShortLinksForm settings={settings.data} canManage={canManage} />}
    </Section>
  );
}
