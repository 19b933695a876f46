import { useQuery } from '@tanstack/react-query';
import { useRef, useState, type RefObject } from 'react';
import { api, unwrap } from '../../api/client.js';
import { queryKeys } from '../../api/queries.js';
import { useMe } from '../../api/session.js';
import { ConfirmDialog } from '../../components/ConfirmDialog.js';
import { ErrorNotice, Modal, Spinner } from '../../components/ui.js';
import { Composer, type ComposerGuard } from './Composer.js';
import { draftKey, type DraftTarget } from './drafts.js';
import { emptyState, stateFromPosts, type ComposeState } from './model.js';
import './compose.css';
import { CommentsPanel } from '../posts/CommentsPanel.js';

/** What the composer opens with: a new post (optionally at a time, for channels) or an existing group to edit. */
export interface ComposeInitial {
  /** ISO instant the post is planned for (a calendar slot the person clicked) */
  date?: string;
  /** channels preselected */
  integrationIds?: string[];
  /** edit the posts of this group (GET /posts/group/{group}) */
  group?: string;
  /** start from a copy of this post (duplicate) */
  duplicateOf?: string;
}

/** The posts of one group (one per channel, with their thread items), to edit them together. */
async function loadGroup(group: string) {
  return (await unwrap(api.GET('/posts/group/{group}', { params: { path: { group } } }))).posts;
}

interface Seed {
  state: ComposeState;
  date: string | undefined;
}

function targetOf(initial: ComposeInitial | undefined): DraftTarget {
  if (initial?.group) return { kind: 'edit', group: initial.group };
  if (initial?.duplicateOf) return { kind: 'duplicate', postId: initial.duplicateOf };
  return { kind: 'new' };
}

function Loader({ initial, onDone, guard }: { initial: ComposeInitial | undefined; onDone: () => void; guard: RefObject<ComposerGuard | null> }) {
  const me = useMe();
  const group = useQuery({
    queryKey: ['compose-group', initial?.group ?? ''],
    queryFn: () => loadGroup(initial!.group!),
    enabled: Boolean(initial?.group),
    staleTime: Infinity,
    gcTime: 0,
  });
  const duplicate = useQuery({
    queryKey: queryKeys.post(initial?.duplicateOf ?? ''),
    queryFn: () => unwrap(api.GET('/posts/{id}', { params: { path: { id: initial!.duplicateOf! } } })),
    enabled: Boolean(initial?.duplicateOf) && !initial?.group,
  });
  let seed: Seed;
  if (initial?.group) {
    if (group.isPending) return <Spinner label="Loading the post" />;
    if (group.error) return <ErrorNotice error={group.error} />;
    seed = { state: stateFromPosts(group.data, 'edit'), date: group.data[0]?.publishDate };
  } else if (initial?.duplicateOf) {
    if (duplicate.isPending) return <Spinner label="Loading the post" />;
    if (duplicate.error) return <ErrorNotice error={duplicate.error} />;
    seed = { state: stateFromPosts([duplicate.data], 'duplicate'), date: initial.date };
  } else {
    seed = { state: emptyState(initial?.integrationIds ?? []), date: initial?.date };
  }
  return <Composer initialState={seed.state} initialDate={seed.date} onDone={onDone} draftKey={draftKey(me.user.id, me.organization.id, targetOf(initial))} guard={guard} />;
}

/**
 * The composer (issue 16): one post for one or many channels, with a shared text and per-channel
 * overrides, thread items, media, each channel's settings, live previews and counters; saved as a
 * draft, scheduled or posted now through POST /posts. Closes itself after a save and invalidates
 * ['posts'].
 *
 * Nothing typed is lost (issue 25): closing it (Escape, a click outside, the close button) with
 * changes asks first, and the unsent work is kept in this browser as it is typed (drafts.ts) and
 * offered again when the composer opens for the same post.
 */
export default function ComposeDialog({ open, onOpenChange, initial }: { open: boolean; onOpenChange: (open: boolean) => void; initial?: ComposeInitial }) {
  const title = initial?.group ? 'Edit post' : initial?.duplicateOf ? 'Duplicate post' : 'New post';
  const guard = useRef<ComposerGuard | null>(null);
  const [asking, setAsking] = useState(false);

  function requestOpenChange(next: boolean) {
    if (!next && guard.current?.hasChanges()) setAsking(true);
    else onOpenChange(next);
  }

  return (
    <>
      <Modal open={open} onOpenChange={requestOpenChange} title={title} wide>
        {open ? <Loader initial={initial} onDone={() => onOpenChange(false)} guard={guard} /> : null}
        {open && initial?.group ? (
          <details className="compose-comments">
            <summary>Comments</summary>
            <CommentsPanel group={initial.group} heading={false} />
          </details>
        ) : null}
      </Modal>
      <ConfirmDialog
        open={open && asking}
        title="Discard this post?"
        description={initial?.group ? 'Your changes will be lost; the saved post stays as it was.' : 'What you wrote and chose here will be lost.'}
        cancel="Keep editing"
        confirm="Discard"
        onCancel={() => setAsking(false)}
        onConfirm={() => {
          guard.current?.discard();
          setAsking(false);
          onOpenChange(false);
        }}
      />
    </>
  );
}
