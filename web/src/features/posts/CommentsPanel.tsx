import { useId, useMemo, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import { useCanManage, useMe, useTimeZone } from '../../api/session.js';
import { Button, ErrorNotice, Spinner } from '../../components/ui.js';
import { formatDateTime, utcTitle } from '../../lib/time.js';
import { useAddComment, useComments, useDeleteComment, useMentionable, useUpdateComment, type PostComment } from './comment-queries.js';
import './comments.css';

interface Person {
  id: string;
  label: string;
}

/** The `@word` being typed just before the caret (null: none). */
export function mentionQuery(text: string, caret: number): string | null {
  const m = /(?:^|\s)@([^\s@]{0,40})$/u.exec(text.slice(0, caret));
  return m ? m[1]! : null;
}

function CommentItem({ comment, group, mine, canManage, tz }: { comment: PostComment; group: string; mine: boolean; canManage: boolean; tz: string }) {
  const update = useUpdateComment(group);
  const remove = useDeleteComment(group);
  const [asking, setAsking] = useState(false);
  const busy = update.isPending || remove.isPending;
  return (
    <li className={`comment${comment.resolved ? ' comment-resolved' : ''}`} aria-label={`Comment by ${comment.author.name}`}>
      <div className="comment-head">
        <strong>{comment.author.name}</strong>
        <time className="hint" dateTime={comment.createdAt} title={utcTitle(comment.createdAt)}>
          {formatDateTime(comment.createdAt, tz)}
        </time>
        {comment.edited ? <span className="hint">(edited)</span> : null}
        {comment.resolved ? <span className="comment-badge">Resolved{comment.resolvedBy ? ` by ${comment.resolvedBy}` : ''}</span> : null}
      </div>
      <p className="comment-body">{comment.body}</p>
      <div className="comment-actions">
        <Button variant="ghost" disabled={busy} onClick={() => update.mutate({ id: comment.id, resolved: !comment.resolved })}>
          {comment.resolved ? 'Reopen' : 'Resolve'}
        </Button>
        {mine || canManage ? (
          asking ? (
            <span className="comment-confirm" role="group" aria-label="Delete this comment?">
              <span>Delete this comment?</span>
              <Button variant="danger" disabled={busy} onClick={() => remove.mutate(comment.id)}>
                {remove.isPending ? 'Deleting…' : 'Delete'}
              </Button>
              <Button variant="ghost" disabled={busy} onClick={() => setAsking(false)}>
                Keep
              </Button>
            </span>
          ) : (
            <Button variant="ghost" disabled={busy} onClick={() => setAsking(true)}>
              Delete
            </Button>
          )
        ) : null}
      </div>
      <ErrorNotice error={update.error ?? remove.error} />
    </li>
  );
}

/** Write a comment; typing `@` offers the organisation's members to mention (they are notified). */
function CommentForm({ group }: { group: string }) {
  const members = useMentionable();
  const add = useAddComment(group);
  const [text, setText] = useState('');
  const [picked, setPicked] = useState<Person[]>([]);
  const [query, setQuery] = useState<string | null>(null);
  const [active, setActive] = useState(0);
  const area = useRef<HTMLTextAreaElement>(null);
  const ids = { text: useId(), list: useId() };

  const people = useMemo<Person[]>(() => (members.data?.members ?? []).map((m) => ({ id: m.userId, label: m.name || m.email })), [members.data]);
  const options = query === null ? [] : people.filter((p) => p.label.toLowerCase().includes(query.toLowerCase())).slice(0, 6);
  const open = options.length > 0;

  const follow = (value: string, caret: number) => {
    setText(value);
    setQuery(mentionQuery(value, caret));
    setActive(0);
  };
  const choose = (p: Person) => {
    const el = area.current;
    const caret = el?.selectionStart ?? text.length;
    const before = text.slice(0, caret).replace(/@([^\s@]{0,40})$/u, `@${p.label} `);
    const next = before + text.slice(caret);
    setText(next);
    setQuery(null);
    setPicked((all) => (all.some((x) => x.id === p.id) ? all : [...all, p]));
    requestAnimationFrame(() => {
      el?.focus();
      el?.setSelectionRange(before.length, before.length);
    });
  };
  const onKey = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (!open) return;
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      setActive((i) => (i + (e.key === 'ArrowDown' ? 1 : options.length - 1)) % options.length);
    } else if (e.key === 'Enter' || e.key === 'Tab') {
      e.preventDefault();
      choose(options[active] ?? options[0]!);
    } else if (e.key === 'Escape') {
      e.preventDefault();
      setQuery(null);
    }
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const body = text.trim();
    if (!body) return;
    const mentions = picked.filter((p) => body.includes(`@${p.label}`)).map((p) => p.id);
    add.mutate(
      { body, mentions },
      {
        onSuccess: () => {
          setText('');
          setPicked([]);
        },
      },
    );
  };
  const mentioned = picked.filter((p) => text.includes(`@${p.label}`));

  return (
    <form className="comment-form" onSubmit={submit}>
      <label htmlFor={ids.text}>Write a comment</label>
      <div className="comment-input">
        <textarea
          id={ids.text}
          ref={area}
          rows={3}
          maxLength={5000}
          value={text}
          placeholder="Type @ to mention a member"
          role="combobox"
          aria-autocomplete="list"
          aria-expanded={open}
          aria-controls={ids.list}
          aria-activedescendant={open ? `${ids.list}-${active}` : undefined}
          onChange={(e) => follow(e.target.value, e.target.selectionStart)}
          onKeyDown={onKey}
          onBlur={() => setQuery(null)}
        />
        <ul id={ids.list} role="listbox" aria-label="Members to mention" className="mention-list" hidden={!open}>
          {options.map((p, i) => (
            <li
              key={p.id}
              id={`${ids.list}-${i}`}
              role="option"
              aria-selected={i === active}
              onMouseDown={(e) => {
                e.preventDefault();
                choose(p);
              }}
            >
              @{p.label}
            </li>
          ))}
        </ul>
      </div>
      {mentioned.length > 0 ? <p className="hint">Notifies {mentioned.map((p) => p.label).join(', ')}</p> : null}
      <ErrorNotice error={add.error} />
      <Button type="submit" disabled={add.isPending || text.trim() === ''}>
        {add.isPending ? 'Posting…' : 'Comment'}
      </Button>
    </form>
  );
}

/**
 * The internal comments on a post group (issue 31): never published. In the post page and in the
 * composer when it edits a post. Anyone resolves or reopens; authors (and owners, admins) delete.
 */
export function CommentsPanel({ group, heading = true }: { group: string; heading?: boolean }) {
  const me = useMe();
  const tz = useTimeZone();
  const canManage = useCanManage();
  const comments = useComments(group);
  const headingId = useId();
  const list = comments.data?.comments ?? [];
  const open = list.filter((c) => !c.resolved).length;
  return (
    <section className="post-section comments-panel" aria-labelledby={headingId}>
      <h2 id={headingId} className={heading ? undefined : 'visually-hidden'}>
        Comments{list.length > 0 ? ` (${open} open)` : ''}
      </h2>
      <p className="hint">Internal notes for your team; never published.</p>
      {comments.isPending ? <Spinner label="Loading the comments" /> : null}
      <ErrorNotice error={comments.error} />
      {comments.isSuccess && list.length === 0 ? <p className="hint">No comments yet.</p> : null}
      {list.length > 0 ? (
        <ol className="comment-list">
          {list.map((c) => (
            <CommentItem key={c.id} comment={c} group={group} tz={tz} canManage={canManage} mine={c.author.kind === 'user' && c.author.id === me.user.id} />
          ))}
        </ol>
      ) : null}
      <CommentForm group={group} />
    </section>
  );
}
