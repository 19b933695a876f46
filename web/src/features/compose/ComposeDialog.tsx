import { useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
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
  /** edit the posts of this group (read around `date`, or the date of a post of the group the app has already loaded) */
  group?: string;
  /** start from a copy of this post (duplicate) */
  duplicateOf?: string;
}

const DAY = 24 * 60 * 60 * 1000;

/**
 * The posts of a group. The API has no read by group, so they are read from the calendar window
 * around the group's date (the posts of one request share its publish date) and picked by group.
 */
async function loadGroup(group: string, date: string | undefined) {
  if (!date) throw new Error('This post cannot be opened for editing without its date.');
  const at = new Date(date).getTime();
  const { posts } = await unwrap(api.GET('/posts', { params: { query: { startDate: new Date(at - DAY).toISOString(), endDate: new Date(at + DAY).toISOString() } } }));
  const mine = posts.filter((p) => p.group === group);
  if (mine.length === 0) throw new Error('The posts of this group were not found: they may have been deleted or moved.');
  return mine;
}

/** The publish date of a post of the group that a page has already loaded (post detail, calendar). */
function cachedGroupDate(queryClient: QueryClient, group: string): string | undefined {
  const seen: unknown[] = [...queryClient.getQueriesData({ queryKey: ['post'] }), ...queryClient.getQueriesData({ queryKey: ['posts'] })].map(([, data]) => data);
  for (const data of seen) {
    const list = Array.isArray(data) ? data : [data];
    for (const p of list) {
      if (p && typeof p === 'object' && (p as { group?: unknown }).group === group) {
        const d = (p as { publishDate?: unknown }).publishDate;
        if (typeof d === 'string') return d;
      }
    }
  }
  return undefined;
}

interface Seed {
  state: ComposeState;
  date: string | undefined;
}

function Loader({ initial, onDone }: { initial: ComposeInitial | undefined; onDone: () => void }) {
  const queryClient = useQueryClient();
  const group = useQuery({
    queryKey: ['compose-group', initial?.group ?? '', initial?.date ?? ''],
    queryFn: () => loadGroup(initial!.group!, initial?.date ?? cachedGroupDate(queryClient, initial!.group!)),
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
