import { useId, useState, type FormEvent } from 'react';
import { ConfirmDialog } from '../../components/ConfirmDialog.js';
import { Button, ErrorNotice, Field, Modal, Spinner, TextInput } from '../../components/ui.js';
import { ShownOnce, When } from '../settings/common.js';
import { fieldError, onlyFieldErrors } from '../settings/errors.js';
import { useCreatePreviewLink, usePreviewLinks, useRevokePreviewLink, type PreviewLink, type PreviewTarget } from './linkQueries.js';
import './preview.css';

const EXPIRY_CHOICES = [
  { hours: 24, label: '1 day' },
  { hours: 72, label: '3 days' },
  { hours: 168, label: '1 week' },
  { hours: 336, label: '2 weeks' },
  { hours: 720, label: '30 days' },
  { hours: 2160, label: '90 days' },
];
const FIELDS = ['title', 'expiresInHours', 'password', 'allowApproval'] as const;

function describeLink(link: PreviewLink) {
  if (link.title) return link.title;
  if (link.kind === 'group') return 'This post';
  return `Posts ${link.from?.slice(0, 10) ?? ''} – ${link.to?.slice(0, 10) ?? ''}`;
}

const STATUS_TEXT: Record<PreviewLink['status'], string> = { active: 'Active', expired: 'Expired', revoked: 'Revoked' };

function LinkRow({ link, onRevoke }: { link: PreviewLink; onRevoke: (link: PreviewLink) => void }) {
  return (
    <li className="preview-link-row">
      <div className="preview-link-main">
        <span className="preview-link-name">{describeLink(link)}</span>
        <span className={`badge preview-link-status preview-link-${link.status}`}>{STATUS_TEXT[link.status]}</span>
        {link.hasPassword ? <span className="hint">Password</span> : null}
        {link.allowApproval ? <span className="hint">Can approve</span> : <span className="hint">View only</span>}
      </div>
      <div className="hint preview-link-facts">
        By {link.createdBy} · {link.status === 'expired' ? 'expired' : 'expires'} <When iso={link.expiresAt} /> · {link.lastViewedAt ? <>opened <When iso={link.lastViewedAt} /></> : 'not opened yet'}
      </div>
      {link.status === 'active' ? (
        <Button variant="ghost" className="preview-link-revoke" aria-label={`Revoke the link “${describeLink(link)}”`} onClick={() => onRevoke(link)}>
          Revoke
        </Button>
      ) : null}
    </li>
  );
}

/**
 * "Share for review": makes a preview link to one post group or a date range (expiry, an optional
 * password, whether the client may approve), shows its address once with a copy button, and lists
 * the links made before (of this group) with a way to revoke each.
 */
export function PreviewLinkDialog({ open, onOpenChange, target, defaultTitle = '' }: { open: boolean; onOpenChange: (open: boolean) => void; target: PreviewTarget; defaultTitle?: string }) {
  const id = useId();
  const [title, setTitle] = useState(defaultTitle);
  const [hours, setHours] = useState(168);
  const [password, setPassword] = useState('');
  const [allowApproval, setAllowApproval] = useState(false);
  const [shown, setShown] = useState<{ url: string; hasPassword: boolean } | null>(null);
  const [revoking, setRevoking] = useState<PreviewLink | null>(null);
  const create = useCreatePreviewLink();
  const revoke = useRevokePreviewLink();
  const group = target.kind === 'group' ? target.group : undefined;
  const links = usePreviewLinks(group, open);
  const listed = (links.data ?? []).filter((l) => (target.kind === 'group' ? true : l.kind === 'range'));

  function close(next: boolean) {
    if (!next) {
      // the address is shown once: closing forgets it, and the form starts afresh next time
      setShown(null);
      setPassword('');
      create.reset();
    }
    onOpenChange(next);
  }

  function submit(e: FormEvent) {
    e.preventDefault();
    create.mutate(
      { target, title: title.trim() || undefined, expiresInHours: hours, password: password === '' ? undefined : password, allowApproval },
      {
        onSuccess: (made) => {
          setShown({ url: made.url, hasPassword: made.link.hasPassword });
          setPassword('');
        },
      },
    );
  }

  return (
    <Modal open={open} onOpenChange={close} title="Share for review" description="A link your client opens without an account: they see the posts as they will look on each channel." wide>
      {shown ? (
        <ShownOnce
          title="Link ready"
          label="Preview link"
          secret={shown.url}
          warning="Copy this link now: it is shown only once. Tidings keeps only a fingerprint of it; if it is lost, revoke it and make another."
          onDone={() => setShown(null)}
        >
          {shown.hasPassword ? <p className="hint">Send the password to your client separately from the link (another message or a call).</p> : null}
        </ShownOnce>
      ) : (
        <form className="preview-link-form" onSubmit={submit} aria-labelledby={`${id}-new`}>
          <h3 id={`${id}-new`} className="visually-hidden">
            New preview link
          </h3>
          <Field label="Title (optional)" hint="What your client reads at the top of the page." error={fieldError(create.error, 'title')}>
            {(p) => <TextInput {...p} value={title} maxLength={200} onChange={(e) => setTitle(e.target.value)} placeholder="e.g. Posts for next week" />}
          </Field>
          <Field label="Link expires after" error={fieldError(create.error, 'expiresInHours')}>
            {(p) => (
              <select {...p} className="input" value={hours} onChange={(e) => setHours(Number(e.target.value))}>
                {EXPIRY_CHOICES.map((c) => (
                  <option key={c.hours} value={c.hours}>
                    {c.label}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <Field label="Password (optional)" hint="At least 8 characters. Your client types it before seeing anything." error={fieldError(create.error, 'password')}>
            {(p) => <TextInput {...p} type="password" autoComplete="new-password" value={password} minLength={8} maxLength={200} onChange={(e) => setPassword(e.target.value)} />}
          </Field>
          <label className="preview-link-check">
            <input type="checkbox" checked={allowApproval} onChange={(e) => setAllowApproval(e.target.checked)} />
            <span>
              Let the client approve or request changes
              <span className="hint"> — only someone who approves these posts can allow this.</span>
            </span>
          </label>
          {create.error && !onlyFieldErrors(create.error, FIELDS) ? <ErrorNotice error={create.error} /> : null}
          <div className="dialog-actions">
            <Button variant="secondary" type="button" onClick={() => close(false)}>
              Cancel
            </Button>
            <Button type="submit" disabled={create.isPending}>
              {create.isPending ? 'Creating…' : 'Create link'}
            </Button>
          </div>
        </form>
      )}

      <section className="preview-link-list" aria-labelledby={`${id}-list`}>
        <h3 id={`${id}-list`}>{target.kind === 'group' ? 'Links to this post' : 'Links to date ranges'}</h3>
        {links.isPending ? <Spinner label="Loading the links" /> : null}
        <ErrorNotice error={links.error ?? revoke.error} />
        {links.data && listed.length === 0 ? <p className="hint">None yet.</p> : null}
        {listed.length > 0 ? (
          <ul className="preview-links">
            {listed.map((l) => (
              <LinkRow key={l.id} link={l} onRevoke={setRevoking} />
            ))}
          </ul>
        ) : null}
      </section>
      <ConfirmDialog
        open={revoking !== null}
        title="Revoke this link?"
        description="Whoever has it sees “not valid” from now on. This cannot be undone; you can make a new link."
        confirm="Revoke"
        cancel="Keep it"
        onConfirm={() => {
          if (revoking) revoke.mutate(revoking.id);
          setRevoking(null);
        }}
        onCancel={() => setRevoking(null)}
      />
    </Modal>
  );
}

/** A "Share for review" button that opens the dialog for one post group (the post page's actions). */
export function ShareForReviewButton({ group, disabled }: { group: string; disabled?: boolean }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <Button variant="secondary" onClick={() => setOpen(true)} disabled={disabled}>
        Share for review
      </Button>
      {open ? <PreviewLinkDialog open={open} onOpenChange={setOpen} target={{ kind: 'group', group }} /> : null}
    </>
  );
}
