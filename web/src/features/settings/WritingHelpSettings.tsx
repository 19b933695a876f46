import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useCanManage } from '../../api/session.js';
import { Button, ErrorNotice, Field, Notice, Spinner, TextInput } from '../../components/ui.js';
import { ConfirmButton, LoadError, SavedSecretInput, Section } from './common.js';
import { fieldError, onlyFieldErrors } from './errors.js';
import { deleteAiSettings, getAiSettings, linkKeys, putAiSettings, type AiSettings, type AiSettingsBody } from './links-ai-api.js';

const FORM_FIELDS = ['baseUrl', 'apiKey', 'model', 'vision'] as const;

/** Servers people run on their own machine that speak the OpenAI API: a button fills the base URL (and a model when the field is empty). */
export const LOCAL_SERVERS = [
  { name: 'Ollama', baseUrl: 'http://127.0.0.1:11434/v1', model: 'llama3.2' },
  { name: 'LM Studio', baseUrl: 'http://127.0.0.1:1234/v1', model: '' },
] as const;

function Status({ settings }: { settings: AiSettings }) {
  if (!settings.configured) {
    return (
      <p className="ai-status" data-testid="ai-status">
        <span className="badge badge-muted">Off</span> <span>No model is set: writing help is not offered and nothing is sent anywhere.</span>
      </p>
    );
  }
  return (
    <p className="ai-status" data-testid="ai-status">
      <span className="badge badge-ok">On</span>{' '}
      <span>
        Using <strong>{settings.model}</strong> at <code className="ai-base-url">{settings.baseUrl}</code>
        {settings.vision ? ' (reads images)' : ''}.
      </span>
    </p>
  );
}

/** The origin of an address, or null when it is not one (yet). */
function originOf(url: string | null): string | null {
  try {
    return url ? new URL(url.trim()).origin : null;
  } catch {
    return null;
  }
}

function WritingHelpForm({ settings, canManage }: { settings: AiSettings; canManage: boolean }) {
  const queryClient = useQueryClient();
  const [baseUrl, setBaseUrl] = useState(settings.baseUrl ?? '');
  const [model, setModel] = useState(settings.model ?? '');
  const [apiKey, setApiKey] = useState('');
  const [vision, setVision] = useState(settings.vision);
  // The service sends a saved key only to the address it was saved for: at another address the
  // key must be typed again, and an empty field then means "no key" (a local server needs none).
  const keyKept = settings.hasApiKey && originOf(baseUrl) === originOf(settings.baseUrl);

  const save = useMutation({
    mutationFn: () => {
      const body: AiSettingsBody = { baseUrl: baseUrl.trim(), model: model.trim(), vision };
      if (apiKey.trim() !== '') body.apiKey = apiKey.trim();
      else if (settings.hasApiKey && !keyKept) body.apiKey = null;
      return putAiSettings(body);
    },
    onSuccess: (saved) => {
      queryClient.setQueryData(linkKeys.aiSettings, saved);
      setApiKey('');
    },
  });
  const dirty = () => {
    if (save.error || save.isSuccess) save.reset();
  };

  function submit(e: FormEvent) {
    e.preventDefault();
    save.mutate();
  }

  return (
    <form className="card settings-form writing-help-form" onSubmit={submit} noValidate aria-label="Writing help model">
      <fieldset className="bare-fieldset" disabled={!canManage || save.isPending}>
        <Field label="Base URL" hint="Of an OpenAI-compatible API, ending before /chat/completions. It is checked when you save." error={fieldError(save.error, 'baseUrl')}>
          {(p) => (
            <TextInput
              {...p}
              type="url"
              value={baseUrl}
              required
              maxLength={2048}
              autoComplete="off"
              spellCheck={false}
              placeholder="http://127.0.0.1:11434/v1"
              onChange={(e) => {
                setBaseUrl(e.target.value);
                dirty();
              }}
            />
          )}
        </Field>
        <div className="ai-presets" role="group" aria-label="Fill in a local server">
          <span className="hint">Running a model yourself?</span>
          {LOCAL_SERVERS.map((s) => (
            <Button
              key={s.name}
              variant="secondary"
              className="btn-small"
              aria-label={`Use ${s.name} (${s.baseUrl})`}
              onClick={() => {
                setBaseUrl(s.baseUrl);
                if (s.model && model.trim() === '') setModel(s.model);
                dirty();
              }}
            >
              {s.name}
            </Button>
          ))}
        </div>
        <Field label="Model" hint="The model’s name as the server knows it, e.g. llama3.2 on Ollama or gpt-4o-mini on OpenAI." error={fieldError(save.error, 'model')}>
          {(p) => (
            <TextInput
              {...p}
              value={model}
              required
              maxLength={200}
              autoComplete="off"
              spellCheck={false}
              placeholder="llama3.2"
              onChange={(e) => {
                setModel(e.target.value);
                dirty();
              }}
            />
          )}
        </Field>
        <Field
          label="API key (optional)"
          hint={
            keyKept
              ? 'A key is saved (it is never shown again). Leave this empty to keep it.'
              : settings.hasApiKey
                ? 'The saved key is only sent to the address it was saved for: type it again for this one, or leave this empty to send none.'
                : 'Local servers usually need none. A key is stored sealed and sent only to this base URL.'
          }
          error={fieldError(save.error, 'apiKey')}
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
        <label className="check check-enabled ai-vision">
          <input
            type="checkbox"
            checked={vision}
            onChange={(e) => {
              setVision(e.target.checked);
              dirty();
            }}
          />
          <span>
            The model reads images
            <span className="check-hint">Then it can write alt text for images. Leave it off for text-only models.</span>
          </span>
        </label>
        {fieldError(save.error, 'vision') ? (
          <p className="error" role="alert">
            {fieldError(save.error, 'vision')}
          </p>
        ) : null}
      </fieldset>
      {save.error && !onlyFieldErrors(save.error, FORM_FIELDS) ? <ErrorNotice error={save.error} /> : null}
      {save.isSuccess ? <Notice kind="ok">Saved: writing help is on, with {save.data.model}.</Notice> : null}
      {canManage ? (
        <div className="form-actions">
          <Button type="submit" disabled={save.isPending}>
            {save.isPending ? 'Checking and saving…' : settings.configured ? 'Save changes' : 'Turn on writing help'}
          </Button>
        </div>
      ) : null}
    </form>
  );
}

/**
 * Settings → Writing help: the organisation's own model (an OpenAI-compatible endpoint: base URL,
 * model, optional key) for the composer's writing help (GET/PUT/DELETE /ai/settings). Off by
 * default: nothing is sent anywhere until a model is set. Owners and admins change it.
 */
export function WritingHelpSettings() {
  const canManage = useCanManage();
  const queryClient = useQueryClient();
  const settings = useQuery({ queryKey: linkKeys.aiSettings, queryFn: getAiSettings });
  // the form starts again from what is saved after turning off
  const [formVersion, setFormVersion] = useState(0);
  return (
    <Section
      title="Writing help"
      description="The composer can draft, rewrite per platform, split into threads, suggest hashtags, translate and write alt text with a model you choose: any server that speaks the OpenAI API, such as Ollama or LM Studio on your own machine. Nothing is sent anywhere until a model is set here, and every suggestion waits for you to accept or edit it."
      actions={
        settings.data?.configured && canManage ? (
          <ConfirmButton
            label="Turn off"
            ariaLabel="Turn off writing help"
            title="Turn off writing help?"
            confirmLabel="Turn off"
            onConfirm={async () => {
              await deleteAiSettings();
              queryClient.setQueryData<AiSettings>(linkKeys.aiSettings, { configured: false, baseUrl: null, model: null, vision: false, hasApiKey: false });
              setFormVersion((v) => v + 1);
              await queryClient.invalidateQueries({ queryKey: linkKeys.aiSettings });
            }}
          >
            <p>The base URL, model and key are forgotten. The composer stops offering writing help and nothing more is sent to the model.</p>
          </ConfirmButton>
        ) : null
      }
    >
      {settings.isPending ? (
        <Spinner label="Loading writing help settings" />
      ) : settings.error ? (
        <LoadError error={settings.error} what="writing help" />
      ) : (
        <>
          <Status settings={settings.data} />
          {!canManage ? <Notice>Only owners and admins can change the model. You can read which one is used.</Notice> : null}
          <WritingHelpForm key={formVersion} settings={settings.data} canManage={canManage} />
        </>
      )}
    </Section>
  );
}
