import { useMutation } from '@tanstack/react-query';
import { useEffect, useId, useRef, useState, type Dispatch, type FormEvent, type InputHTMLAttributes, type ReactNode, type SetStateAction } from 'react';
import { useIntegrations } from '../../api/queries.js';
import { useTimeZone } from '../../api/session.js';
import { Button, ErrorNotice, Modal, Notice, Spinner, TextInput } from '../../components/ui.js';
import { platformName } from '../../lib/platforms.js';
import { formatDateTime, utcTitle } from '../../lib/time.js';
import { isForbidden, onlyFieldErrors } from './errors.js';
import './settings.css';

/** An instant in the person's zone, the UTC truth on hover. */
export function When({ iso, empty = '—', opts }: { iso: string | null | undefined; empty?: string; opts?: Intl.DateTimeFormatOptions }) {
  const zone = useTimeZone();
  if (!iso) return <span className="muted">{empty}</span>;
  return (
    <time dateTime={iso} title={utcTitle(iso)}>
      {formatDateTime(iso, zone, opts)}
    </time>
  );
}

/** Copies `text` to the clipboard; where the clipboard is not available, selects `fallback` for Ctrl+C. */
export function CopyButton({ text, label = 'Copy', fallback }: { text: string; label?: string; fallback?: () => HTMLInputElement | HTMLTextAreaElement | null }) {
  const [state, setState] = useState<'idle' | 'copied' | 'manual'>('idle');
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);

  async function copy() {
    clearTimeout(timer.current);
    try {
      if (!navigator.clipboard) throw new Error('no clipboard');
      await navigator.clipboard.writeText(text);
      setState('copied');
    } catch {
      const input = fallback?.();
      input?.focus();
      input?.select();
      setState('manual');
    }
    timer.current = setTimeout(() => setState('idle'), 4000);
  }

  return (
    <>
      <Button variant="secondary" onClick={() => void copy()}>
        {state === 'copied' ? 'Copied ✓' : label}
      </Button>
      <span className="visually-hidden" role="status" aria-live="polite">
        {state === 'copied' ? 'Copied to the clipboard' : state === 'manual' ? 'Selected: press Ctrl+C (⌘C) to copy' : ''}
      </span>
      {state === 'manual' ? <span className="hint">Selected: press Ctrl+C (⌘C) to copy.</span> : null}
    </>
  );
}

/**
 * A secret the API answers only once (an API key, a webhook's signing secret, an invitation
 * link): shown with a copy button and a warning until the person dismisses it. It lives only in
 * this component's props: nothing caches or stores it, so once dismissed it is gone.
 */
export function ShownOnce({ title, label, secret, warning, onDone, children }: { title: string; label: string; secret: string; warning: ReactNode; onDone: () => void; children?: ReactNode }) {
  const id = useId();
  const input = useRef<HTMLInputElement>(null);
  return (
    <section className="shown-once" aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>{title}</h3>
      <p className="shown-once-warning">
        <span aria-hidden="true">⚠ </span>
        {warning}
      </p>
      <div className="secret-row">
        <label htmlFor={`${id}-value`} className="visually-hidden">
          {label}
        </label>
        <input ref={input} id={`${id}-value`} className="input secret-value" readOnly value={secret} spellCheck={false} onFocus={(e) => e.currentTarget.select()} />
        <CopyButton text={secret} fallback={() => input.current} />
      </div>
      {children}
      <div className="shown-once-foot">
        <Button variant="primary" onClick={onDone}>
          Done, I have saved it
        </Button>
      </div>
    </section>
  );
}

/**
 * A button that asks before doing something that cannot be undone. `onConfirm` runs the call;
 * the dialog closes when it succeeds and shows the API's refusal when it does not.
 */
export function ConfirmButton({
  label,
  ariaLabel,
  title,
  children,
  confirmLabel,
  onConfirm,
  variant = 'danger',
  disabled,
}: {
  label: string;
  ariaLabel?: string;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  onConfirm: () => Promise<unknown>;
  variant?: 'danger' | 'secondary' | 'primary';
  disabled?: boolean;
}) {
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);

  async function run() {
    setBusy(true);
    setError(null);
    try {
      await onConfirm();
      setOpen(false);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  }

  return (
    <>
      <Button variant={variant} aria-label={ariaLabel} disabled={disabled} onClick={() => setOpen(true)}>
        {label}
      </Button>
      <Modal
        open={open}
        onOpenChange={(o) => {
          if (!busy) {
            setOpen(o);
            if (!o) setError(null);
          }
        }}
        title={title}
      >
        <div className="confirm-body">{children}</div>
        <ErrorNotice error={error} />
        <div className="dialog-actions">
          <Button variant="ghost" onClick={() => setOpen(false)} disabled={busy}>
            Cancel
          </Button>
          <Button variant={variant === 'danger' ? 'danger' : 'primary'} className={variant === 'danger' ? 'btn-danger-solid' : undefined} onClick={() => void run()} disabled={busy}>
            {busy ? 'Working…' : confirmLabel}
          </Button>
        </div>
      </Modal>
    </>
  );
}

/** A read failure; a 403 FORBIDDEN says plainly that the person's role does not allow it. */
export function LoadError({ error, what }: { error: unknown; what: string }) {
  if (isForbidden(error)) {
    return (
      <Notice kind="bad">
        <strong>Not allowed for your role.</strong> Only owners and admins can manage {what}. The server answered: “{error.body.message}”
      </Notice>
    );
  }
  return <ErrorNotice error={error} />;
}

/** A titled block of a settings page. */
export function Section({ title, description, actions, children }: { title: string; description?: ReactNode; actions?: ReactNode; children?: ReactNode }) {
  const id = useId();
  return (
    <section className="settings-section" aria-labelledby={id}>
      <div className="settings-section-head">
        <div>
          <h2 id={id}>{title}</h2>
          {description ? <div className="hint">{description}</div> : null}
        </div>
        {actions ? <div className="page-actions">{actions}</div> : null}
      </div>
      {children}
    </section>
  );
}

/** A settings form's save: the mutation (`onSaved` on success) and the form's submit handler. */
export function useFormSave<T>(mutationFn: () => Promise<T>, onSaved: (saved: T) => void) {
  const save = useMutation({ mutationFn, onSuccess: onSaved });
  function submit(e: FormEvent) {
    e.preventDefault();
    save.mutate();
  }
  return { save, submit };
}

/**
 * A settings form's foot: the API's refusal when no field shows it (errors naming one of `fields`
 * are shown by that field), then Cancel and the submit button ("Saving…" while it runs).
 */
export function FormFooter({ error, fields, pending, onCancel, submitLabel }: { error: unknown; fields: readonly string[]; pending: boolean; onCancel: () => void; submitLabel: string }) {
  return (
    <>
      {error && !onlyFieldErrors(error, fields) ? <ErrorNotice error={error} /> : null}
      <div className="dialog-actions">
        <Button variant="ghost" onClick={onCancel} disabled={pending}>
          Cancel
        </Button>
        <Button type="submit" disabled={pending}>
          {pending ? 'Saving…' : submitLabel}
        </Button>
      </div>
    </>
  );
}

/** Toggles `item` in a list (checkbox groups). */
export function toggle<T>(list: T[], item: T, on: boolean): T[] {
  return on ? (list.includes(item) ? list : [...list, item]) : list.filter((x) => x !== item);
}

/**
 * The "Channels" checkbox group of a settings form: the organisation's channels, `hint` saying what
 * the ticked ones mean, the API's `error` for the field. With `showRemoved`, ticked channels that are
 * gone (deleted) stay listed, so saving does not silently drop them.
 */
export function ChannelChecklist({ channels, setChannels, hint, error, showRemoved = false }: { channels: string[]; setChannels: Dispatch<SetStateAction<string[]>>; hint: ReactNode; error: string | undefined; showRemoved?: boolean }) {
  const id = useId();
  const integrations = useIntegrations();
  const known = new Set((integrations.data ?? []).map((i) => i.id));
  const unknownChannels = showRemoved ? channels.filter((c) => !known.has(c)) : [];
  return (
    <fieldset className="choice-group" aria-describedby={`${id}-channels-hint${error ? ` ${id}-channels-error` : ''}`}>
      <legend>Channels</legend>
      <p className="hint" id={`${id}-channels-hint`}>
        {hint}
      </p>
      {integrations.isPending ? (
        <Spinner label="Loading channels" />
      ) : integrations.error ? (
        <ErrorNotice error={integrations.error} />
      ) : integrations.data.length === 0 && unknownChannels.length === 0 ? (
        <p className="muted">No channels connected yet.</p>
      ) : (
        <div className="choice-columns">
          {integrations.data.map((i) => (
            <label key={i.id} className="check">
              <input type="checkbox" checked={channels.includes(i.id)} onChange={(e) => setChannels((list) => toggle(list, i.id, e.target.checked))} />
              <span>
                {i.name}
                <span className="check-hint">{platformName(i.identifier)}</span>
              </span>
            </label>
          ))}
          {unknownChannels.map((c) => (
            <label key={c} className="check">
              <input type="checkbox" checked onChange={(e) => setChannels((list) => toggle(list, c, e.target.checked))} />
              <span>
                <span className="muted">A removed channel</span>
                <span className="check-hint">{c}</span>
              </span>
            </label>
          ))}
        </div>
      )}
      {error ? (
        <p className="error" id={`${id}-channels-error`} role="alert">
          {error}
        </p>
      ) : null}
    </fieldset>
  );
}

/**
 * A key field for a secret the service keeps sealed and never shows again: empty means "keep the
 * saved one" when `kept`, and its placeholder says a key is saved.
 */
export function SavedSecretInput({ kept, value, onValue, ...rest }: { kept: boolean; value: string; onValue: (v: string) => void } & Omit<InputHTMLAttributes<HTMLInputElement>, 'value' | 'onChange'>) {
  return <TextInput {...rest} type="password" value={value} autoComplete="off" spellCheck={false} placeholder={kept ? '•••••••• (saved)' : ''} onChange={(e) => onValue(e.target.value)} />;
}
