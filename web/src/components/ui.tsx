import * as Dialog from '@radix-ui/react-dialog';
import { forwardRef, useId, type ButtonHTMLAttributes, type InputHTMLAttributes, type ReactNode } from 'react';
import { ApiFailure } from '../api/client.js';
import { useDocumentTitle } from '../lib/documentTitle.js';

/**
 * The app's small component kit: Radix primitives (dialogs, tabs, menus: focus management and
 * ARIA done by a maintained library) under the app's own styles (styles.css).
 */

export const Button = forwardRef<HTMLButtonElement, ButtonHTMLAttributes<HTMLButtonElement> & { variant?: 'primary' | 'secondary' | 'danger' | 'ghost' }>(function Button(
  { variant = 'primary', className, type = 'button', ...rest },
  ref,
) {
  return <button ref={ref} type={type} className={`btn btn-${variant}${className ? ` ${className}` : ''}`} {...rest} />;
});

/** A labelled input with its hint and its error (announced, and tied to the input). */
export function Field({ label, hint, error, children, id }: { label: string; hint?: ReactNode; error?: string; id?: string; children: (props: { id: string; 'aria-invalid'?: true; 'aria-describedby'?: string }) => ReactNode }) {
  const auto = useId();
  const fieldId = id ?? auto;
  const describedBy = [hint ? `${fieldId}-hint` : '', error ? `${fieldId}-error` : ''].filter(Boolean).join(' ') || undefined;
  return (
    <div className="field">
      <label htmlFor={fieldId}>{label}</label>
      {hint ? (
        <p className="hint" id={`${fieldId}-hint`}>
          {hint}
        </p>
      ) : null}
      {children({ id: fieldId, ...(error ? { 'aria-invalid': true as const } : {}), ...(describedBy ? { 'aria-describedby': describedBy } : {}) })}
      {error ? (
        <p className="error" id={`${fieldId}-error`} role="alert">
          {error}
        </p>
      ) : null}
    </div>
  );
}

export function TextInput(props: InputHTMLAttributes<HTMLInputElement>) {
  return <input className="input" {...props} />;
}

/**
 * An address the service will fetch (a webhook's, a feed's): `onValue` with each change, and
 * `onChanged` once it changed, for the API's verdict about the address as it was to go.
 */
export function UrlInput({ onValue, onChanged, ...props }: InputHTMLAttributes<HTMLInputElement> & { onValue: (url: string) => void; onChanged: () => void }) {
  return (
    <TextInput
      {...props}
      type="url"
      maxLength={2048}
      required
      autoComplete="off"
      spellCheck={false}
      onChange={(e) => {
        onValue(e.target.value);
        onChanged();
      }}
    />
  );
}

export function Notice({ kind = 'info', children }: { kind?: 'info' | 'ok' | 'bad'; children: ReactNode }) {
  return (
    <div className={`notice notice-${kind}`} role={kind === 'bad' ? 'alert' : 'status'}>
      {children}
    </div>
  );
}

/** An API refusal shown as the API worded it (and which fields it named). */
export function ErrorNotice({ error }: { error: unknown }) {
  if (!error) return null;
  if (error instanceof ApiFailure) {
    return (
      <Notice kind="bad">
        {error.body.message}
        {error.body.fields && error.body.fields.length > 1 ? (
          <ul>
            {error.body.fields.map((f) => (
              <li key={f.path}>
                <code>{f.path}</code>: {f.message}
              </li>
            ))}
          </ul>
        ) : null}
      </Notice>
    );
  }
  return <Notice kind="bad">{error instanceof Error ? error.message : typeof error === 'string' ? error : 'Something went wrong.'}</Notice>;
}

export function Spinner({ label = 'Loading' }: { label?: string }) {
  return (
    <span className="spinner" role="status" aria-live="polite">
      <span className="visually-hidden">{label}…</span>
    </span>
  );
}

/**
 * A page's heading, and its document title ("Calendar · Tidings"): `documentTitle` when the tab
 * should say more than the heading ("API keys · Settings").
 */
export function PageHeader({ title, documentTitle, actions, children }: { title: string; documentTitle?: string; actions?: ReactNode; children?: ReactNode }) {
  useDocumentTitle(documentTitle ?? title);
  return (
    <header className="page-header">
      <div>
        <h1>{title}</h1>
        {children}
      </div>
      {actions ? <div className="page-actions">{actions}</div> : null}
    </header>
  );
}

export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="empty">
      <p className="empty-title">{title}</p>
      {children}
    </div>
  );
}

/** A modal dialog (Radix: focus trap, Escape, labelled by its title). */
export function Modal({ open, onOpenChange, title, description, children, wide }: { open: boolean; onOpenChange: (open: boolean) => void; title: string; description?: string; children: ReactNode; wide?: boolean }) {
  return (
    <Dialog.Root open={open} onOpenChange={onOpenChange}>
      <Dialog.Portal>
        <Dialog.Overlay className="modal-overlay" />
        <Dialog.Content className={`modal${wide ? ' modal-wide' : ''}`} {...(description ? {} : { 'aria-describedby': undefined })}>
          <div className="modal-head">
            <Dialog.Title className="modal-title">{title}</Dialog.Title>
            <Dialog.Close asChild>
              <button type="button" className="btn btn-ghost modal-close" aria-label="Close">
                ×
              </button>
            </Dialog.Close>
          </div>
          {description ? <Dialog.Description className="hint">{description}</Dialog.Description> : null}
          {children}
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}

/** The colour and label of each post state (calendar, lists, detail). */
export const STATE_LABEL: Record<string, string> = { DRAFT: 'Draft', QUEUE: 'Queued', PUBLISHED: 'Published', ERROR: 'Error' };

export function StateBadge({ state }: { state: string }) {
  return <span className={`badge state-${state.toLowerCase()}`}>{STATE_LABEL[state] ?? state}</span>;
}
