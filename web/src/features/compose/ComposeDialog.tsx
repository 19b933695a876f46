import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client.js';
import { queryKeys } from '../../api/queries.js';
import { ErrorNotice, Modal, Spinner } from '../../components/ui.js';
import { Composer } from './Composer.js';
import { emptyState, stateFromPosts, type ComposeState } from './model.js';
import './compose.css';

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

function Loader({ initial, onDone }: { initial: ComposeInitial | undefined; onDone: () => void }) {
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
  return <Composer initialState={seed.state} initialDate={seed.date} onDone={onDone} />;
}

/**
 * The composer (issue 16): one post for one or many channels, with a shared text and per-channel
 * overrides, thread items, media, each channel's settings, live previews and counters; saved as a
 * draft, scheduled or posted now through POST /posts. Closes itself after a save and invalidates
 * ['posts'].
 */
export default function ComposeDialog({ open, onOpenChange, initial }: { open: boolean; onOpenChange: (open: boolean) => void; initial?: ComposeInitial }) {
  const title = initial?.group ? 'Edit post' : initial?.duplicateOf ? 'Duplicate post' : 'New post';
  return (
    <Modal open={open} onOpenChange={onOpenChange} title={title} wide>
      {open ? <Loader initial={initial} onDone={() => onOpenChange(false)} /> : null}
    </Modal>
  );
}
