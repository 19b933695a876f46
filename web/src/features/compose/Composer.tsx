import { zodResolver } from '@hookform/resolvers/zod';
import * as Tabs from '@radix-ui/react-tabs';
import { useMutation, useQueries, useQuery, useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useEffect, useMemo, useRef, useState, type RefObject } from 'react';
import { useForm } from 'react-hook-form';
import { useNavigate } from 'react-router';
import { z } from 'zod';
import { api, ApiFailure, unwrap } from '../../api/client.js';
import { queryKeys, useIntegrations, type CreatePostsBody, type Integration } from '../../api/queries.js';
import type { paths } from '../../api/schema.js';
import { useTimeZone } from '../../api/session.js';
import { Button, ErrorNotice, Field, Notice, Spinner } from '../../components/ui.js';
import { platformName } from '../../lib/platforms.js';
import { formatDateTime, instantFromZone, partsInZone, utcTitle } from '../../lib/time.js';
import { clearDraft, hasChanges, loadDraft, sameSettings, saveDraft, snapshot, type WhenFields } from './drafts.js';
import { ItemEditor, type ItemProblem, type Target } from './ItemEditor.js';
import {
  buildPostsBody,
  describeWhere,
  emptyItem,
  itemsFor,
  localProblems,
  locateInPost,
  newKey,
  problemsFromApi,
  settingsErrorTree,
  shortLinkOn,
  threadSupported,
  usesShared,
  withoutTypeTag,
  type AttachedMedia,
  type ComposeItem,
  type ComposeState,
  type PostType,
  type Problem,
  type Rules,
} from './model.js';
import { Avatar, PreviewCard } from './Preview.js';
import { RepeatControl } from './RepeatControl.js';
import { TemplateControls, type TemplateInsert } from './TemplateControls.js';
import { appendSignature, useSignatures, withAutoSignatures } from './templates.js';
import { buildRule, describeRule, NO_REPEAT, repeatProblems, type RepeatChoice } from './repeat.js';
import { announce } from './toast.js';
import { approvalKeys, submitGroup, useApprovalCheck } from '../approvals/queries.js';
import { getShortLinkSettings, linkKeys } from '../settings/links-ai-api.js';
import { WritingHelp, type UseSuggestion } from './WritingHelp.js';

// rjsf and its schema machinery load only when a selected channel has settings.
const SettingsForm = lazy(() => import('./SettingsForm.js'));

const whenSchema = z.object({
  date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'Choose a date'),
  time: z.string().regex(/^\d{2}:\d{2}$/, 'Choose a time'),
});
type When = z.infer<typeof whenSchema>;

type SeriesBody = paths['/series']['post']['requestBody']['content']['application/json'];
const RULE_FIELD: Record<string, string> = { interval: 'every how many', until: 'last date', count: 'number of posts', weekdays: 'days of the week' };

/** A problem's place as the footer names it (the repeat rule's fields by their labels). */
function whereName(where: Problem['where']): string {
  if (where.kind === 'other' && /^rule(\.|$)/.test(where.path)) {
    const field = where.path.split('.')[1];
    return field ? `repeat: ${RULE_FIELD[field] ?? field}` : 'repeat';
  }
  return describeWhere(where);
}

const SHARED = 'shared';
/** problems shown on a post item's fields */
const itemFields = new Set(['content', 'media', 'delay', 'item']);

function nextHour(): string {
  const d = new Date(Date.now() + 60 * 60 * 1000);
  d.setUTCMinutes(0, 0, 0);
  return d.toISOString();
}

/** Why a channel cannot be chosen, or undefined when it can. */
function unavailable(c: Integration): string | undefined {
  if (c.disabled) return 'Disabled';
  if (c.refreshNeeded) return 'Needs reconnecting';
  return undefined;
}

function names(list: string[]): string {
  if (list.length <= 1) return list.join('');
  return `${list.slice(0, -1).join(', ')} and ${list[list.length - 1]}`;
}

/** How long typing pauses before the draft is written to storage. */
const DRAFT_SAVE_MS = 400;

/** What the dialog around the composer asks it before closing. */
export interface ComposerGuard {
  /** whether closing now would lose something the person typed or chose */
  hasChanges(): boolean;
  /** the person chose to throw the work away: the stored draft goes too */
  discard(): void;
}

/** "shared" or a channel id */
type Scope = string;

/** A tab's count of problems (read out as words). */
function ProblemCount({ n }: { n: number }) {
  return (
    <span className="compose-tab-bad">
      <span aria-hidden="true">{n}</span>
      <span className="visually-hidden">
        {' '}
        ({n} problem{n > 1 ? 's' : ''})
      </span>
    </span>
  );
}

export function Composer({
  initialState,
  initialDate,
  onDone,
  draftKey,
  guard,
}: {
  initialState: ComposeState;
  initialDate: string | undefined;
  onDone: () => void;
  /** where this post's unsent work is kept (drafts.ts) */
  draftKey: string;
  guard?: RefObject<ComposerGuard | null>;
}) {
  const tz = useTimeZone();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const integrations = useIntegrations();
  // What the composer opened with (the stored post, or an empty one): a change is a difference from it.
  const [seedWhen] = useState<WhenFields>(() => partsInZone(initialDate ?? nextHour(), tz));
  const [baseline] = useState(() => snapshot(initialState, seedWhen));
  // Work left unsent last time is taken up again (an edit keeps the stored rows it edits).
  const [restored] = useState(() => loadDraft(draftKey));
  const [restoredAt, setRestoredAt] = useState(restored?.savedAt);
  const [state, setState] = useState<ComposeState>(() => (restored ? { ...restored.state, ...(initialState.edit ? { edit: initialState.edit } : {}) } : initialState));
  const [tab, setTab] = useState<string>(SHARED);
  const [apiProblems, setApiProblems] = useState<Problem[]>([]);
  const [checked, setChecked] = useState(false);
  /** the API's refusal (or a network error) of the last attempt */
  const [failure, setFailure] = useState<unknown>(null);
  /** the last attempt was stopped here: what the API would refuse is shown live */
  const [refused, setRefused] = useState(false);
  const [slotChannel, setSlotChannel] = useState<string>('');
  const [slotNote, setSlotNote] = useState<{ text: string; bad?: boolean }>();
  const [slotBusy, setSlotBusy] = useState(false);
  /** "Repeat" (issue 30): a new post only; repeating saves a series (POST /series) instead of posts */
  const [repeat, setRepeat] = useState<RepeatChoice>(NO_REPEAT);
  const canRepeat = !initialState.edit;
  /** auto-add signatures (Settings → Templates & signatures): appended per channel when a new post is saved */
  const signatures = useSignatures();
  const repeating = canRepeat && repeat.frequency !== 'none';
  /** approval rules (issue 31): on these channels the person cannot queue a post without an approver's yes */
  const approvalCheck = useApprovalCheck(state.channels);
  const needsApproval = approvalCheck.data?.required === true && !repeating;
  /** "Shorten links" (issue 32): the counters count each URL as a short link of the organisation's provider */
  const shortLinks = useQuery({
    queryKey: linkKeys.shortLinkSettings,
    queryFn: getShortLinkSettings,
    enabled: state.channels.some((id) => shortLinkOn(state, id)),
    staleTime: 5 * 60_000,
  });
  /** the length a short link has (known once asked for) */
  const shortLinkLength = shortLinks.data?.shortLinkLength;
  /** what a URL counts as on a channel: the short link's length where its links are shortened */
  const shortFor = (id: string) => (shortLinkOn(state, id) ? shortLinkLength : undefined);

  const channels = useMemo(() => integrations.data ?? [], [integrations.data]);
  const byId = useMemo(() => new Map(channels.map((c) => [c.id, c])), [channels]);
  const selected = state.channels.map((id) => byId.get(id)).filter((c): c is Integration => c !== undefined);

  const rulesQueries = useQueries({
    queries: state.channels.map((id) => ({
      queryKey: queryKeys.settings(id),
      queryFn: async () => (await unwrap(api.GET('/integration-settings/{id}', { params: { path: { id } } }))).output,
      staleTime: 5 * 60_000,
    })),
  });
  const rulesOf: Record<string, Rules | undefined> = Object.fromEntries(state.channels.map((id, i) => [id, rulesQueries[i]?.data]));
  const rulesPending = rulesQueries.some((q) => q.isPending);
  const rulesError = rulesQueries.find((q) => q.error)?.error;

  const draftEntries = Object.entries(state.edit?.drafts ?? {});
  const missingQueries = useQueries({
    queries: draftEntries.map(([, postId]) => ({
      queryKey: ['post-missing', postId],
      queryFn: () => unwrap(api.GET('/posts/{id}/missing', { params: { path: { id: postId } } })),
    })),
  });

  const when = useForm<When>({ resolver: zodResolver(whenSchema), defaultValues: restored?.when ?? seedWhen });
  const whenValues = when.watch();
  const whenIso = whenSchema.safeParse(whenValues).success ? instantFromZone(whenValues.date, whenValues.time, tz) : undefined;

  // ---- unsent work: asked about before closing, kept in storage as it is typed -----------------

  const whenFields: WhenFields = { date: whenValues.date ?? '', time: whenValues.time ?? '' };
  const dirty = hasChanges(baseline, state, whenFields);
  const latest = useRef({ state, when: whenFields });
  latest.current = { state, when: whenFields };
  /** saved, scheduled or discarded: nothing is kept any more */
  const finished = useRef(false);

  /** Writes the draft now (or removes it when nothing differs from what the composer opened with). */
  function persist() {
    if (finished.current) return;
    const { state: s, when: w } = latest.current;
    if (hasChanges(baseline, s, w)) saveDraft(draftKey, s, w);
    else clearDraft(draftKey);
  }
  const persistRef = useRef(persist);
  persistRef.current = persist;

  function finish() {
    finished.current = true;
    clearDraft(draftKey);
  }

  const whenKey = `${whenFields.date} ${whenFields.time}`;
  useEffect(() => {
    const timer = setTimeout(() => persistRef.current(), DRAFT_SAVE_MS);
    return () => clearTimeout(timer);
  }, [state, whenKey]);

  useEffect(() => {
    // leaving without the dialog's question (another page of the app, the tab hidden on a phone):
    // what was typed in the last pause is written at once
    const flush = () => persistRef.current();
    window.addEventListener('pagehide', flush);
    return () => {
      window.removeEventListener('pagehide', flush);
      flush();
    };
  }, []);

  useEffect(() => {
    if (!dirty) return;
    const onBeforeUnload = (e: BeforeUnloadEvent) => {
      persistRef.current();
      // the browser's own "Leave site?" question (its words; a page cannot choose them);
      // returnValue for browsers from before preventDefault was enough (Chrome < 119)
      e.preventDefault();
      e.returnValue = true;
    };
    window.addEventListener('beforeunload', onBeforeUnload);
    return () => window.removeEventListener('beforeunload', onBeforeUnload);
  }, [dirty]);

  useEffect(() => {
    if (!guard) return;
    guard.current = {
      hasChanges: () => !finished.current && hasChanges(baseline, latest.current.state, latest.current.when),
      discard: finish,
    };
    return () => {
      guard.current = null;
    };
  });

  // a restored draft may name a channel removed since: it is left out once the channels are known
  useEffect(() => {
    if (!restored || !integrations.data) return;
    const known = new Set(integrations.data.map((c) => c.id));
    setState((s) => (s.channels.every((id) => known.has(id)) ? s : { ...s, channels: s.channels.filter((id) => known.has(id)) }));
  }, [restored, integrations.data]);

  /** Back to what the composer opened with; the stored draft goes. */
  function discardRestored() {
    clearDraft(draftKey);
    setState(initialState);
    when.reset(seedWhen);
    setRestoredAt(undefined);
    setApiProblems([]);
    setChecked(false);
    setFailure(null);
    setRefused(false);
    setTab(SHARED);
    announce('Draft discarded.');
    requestAnimationFrame(() => root.current?.querySelector<HTMLElement>('textarea')?.focus());
  }

  const root = useRef<HTMLDivElement>(null);
  /** bumped after each refusal: the first field named is brought into view */
  const [refusals, setRefusals] = useState(0);

  /** The tab a problem shows in: its channel's, or the shared text's for a channel using it. */
  function tabFor(p: Problem): string {
    return p.channelId && !(usesShared(state, p.channelId) && itemFields.has(p.where.kind)) ? p.channelId : SHARED;
  }

  /** The first field marked invalid in a tab (or the date), scrolled to and optionally focused. */
  function reveal(target: string, focus: boolean) {
    requestAnimationFrame(() => {
      const panel = root.current?.querySelector<HTMLElement>(`[data-compose-panel="${CSS.escape(target)}"]`);
      const field =
        panel?.querySelector<HTMLElement>('[aria-invalid="true"], .rjsf-field-error input, .rjsf-field-error select, .rjsf-field-error textarea') ??
        root.current?.querySelector<HTMLElement>('.compose-when [aria-invalid="true"]');
      if (!field) return;
      field.scrollIntoView({ block: 'center' });
      if (focus) field.focus();
    });
  }

  const liveLocal = checked ? localProblems(state, rulesOf, channels, shortLinkLength) : [];
  // the repeat rule's own problems (checked here, or the API's `rule.*` fields) show beside it
  const ruleLocal = checked && repeating ? repeatProblems(repeat, whenValues.date ?? '') : {};
  const ruleErrors: Record<string, string> = { ...ruleLocal };
  for (const p of apiProblems) if (p.where.kind === 'other' && /^rule(\.|$)/.test(p.where.path)) ruleErrors[p.where.path] ??= p.message;
  const problems: Problem[] = [
    ...liveLocal,
    ...Object.entries(ruleLocal).map(([path, message]) => ({ where: { kind: 'other' as const, path }, message })),
    ...apiProblems,
  ];

  const save = useMutation({
    /** `queuedAt`: the channel whose next open slot "Add to queue" took; `forApproval`: saved as a draft, then submitted */
    mutationFn: async (v: { body: CreatePostsBody; order: string[]; type: PostType; queuedAt?: string; forApproval?: boolean }) => {
      const res = await unwrap(api.POST('/posts', { body: v.body }));
      const group = res[0]?.group;
      // the draft is saved either way: a refused submission is told, not retried (that would save it twice)
      const notSubmitted = v.forApproval && group ? await submitGroup(group).then(() => null, (e: unknown) => (e instanceof Error ? e.message : 'not sent')) : null;
      return Object.assign(res, { notSubmitted });
    },
    onSuccess: (res, v) => {
      finish();
      void queryClient.invalidateQueries({ queryKey: ['posts'] });
      void queryClient.invalidateQueries({ queryKey: ['post'] });
      void queryClient.invalidateQueries({ queryKey: ['post-missing'] });
      const on = names(v.order.map((id) => byId.get(id)?.name ?? 'a channel'));
      const date = v.body.date ? formatDateTime(v.body.date, tz) : '';
      // the post just made, to follow from the notice (the first channel's: its page shows the group)
      const made = res[0]?.postId;
      if (v.forApproval) void queryClient.invalidateQueries({ queryKey: approvalKeys.all });
      announce(
        v.forApproval
          ? res.notSubmitted
            ? `Saved as a draft for ${on}, but not sent for approval: ${res.notSubmitted}`
            : 'Sent for approval'
          : v.type === 'draft'
          ? `Saved as a draft for ${on}.`
          : v.type === 'schedule' && v.queuedAt
            ? `Added to the queue on ${on} for ${date}, the next open slot of ${v.queuedAt}.`
            : v.type === 'schedule'
              ? `Scheduled on ${on} for ${date}.`
              : v.type === 'now'
                ? `Publishing now on ${on}.`
                : 'Changes saved.',
        made && v.type !== 'update' ? { href: `/posts/${encodeURIComponent(made)}`, label: 'Open the post', open: (href) => void navigate(href) } : undefined,
      );
      onDone();
    },
    onError: (e, v) => refusedBy(e, v.order),
  });

  /** The API's refusal: its fields shown where they are (a channel's tab, the date, the repeat rule). */
  function refusedBy(e: unknown, order: string[]) {
    setFailure(e);
    // a rule the composer did not know of (made meanwhile): its message shows, and the buttons follow it
    if (e instanceof ApiFailure && e.body.code === 'APPROVAL_REQUIRED') void queryClient.invalidateQueries({ queryKey: approvalKeys.all });
    if (e instanceof ApiFailure && e.body.fields && e.body.fields.length > 0) {
      const found = problemsFromApi(e.body.fields, order);
      setApiProblems(found);
      const first = found.find((p) => p.channelId);
      if (first) setTab(tabFor(first));
      setRefusals((n) => n + 1);
    }
  }

  const saveSeries = useMutation({
    mutationFn: (v: { body: SeriesBody; order: string[] }) => unwrap(api.POST('/series', { body: v.body })),
    onSuccess: (res, v) => {
      finish();
      void queryClient.invalidateQueries({ queryKey: ['posts'] });
      void queryClient.invalidateQueries({ queryKey: ['series'] });
      const on = names(v.order.map((id) => byId.get(id)?.name ?? 'a channel'));
      const first = res.occurrences[0];
      const made = first?.posts[0]?.postId;
      announce(
        `${v.body.type === 'draft' ? 'Repeating drafts' : 'Repeating post'} on ${on}: ${describeRule(res.series.rule)}.${first ? ` First on ${formatDateTime(first.publishDate, tz)}.` : ''}`,
        made ? { href: `/posts/${encodeURIComponent(made)}`, label: 'Open the first post', open: (href) => void navigate(href) } : undefined,
      );
      onDone();
    },
    onError: (e, v) => refusedBy(e, v.order),
  });

  // ---- state updates ------------------------------------------------------------------------

  function updateItems(scope: Scope, fn: (items: ComposeItem[]) => ComposeItem[]) {
    setState((s) => {
      if (scope === SHARED) return { ...s, shared: fn(s.shared) };
      const own = s.perChannel[scope];
      if (!own) return s;
      return { ...s, perChannel: { ...s.perChannel, [scope]: { ...own, items: fn(own.items) } } };
    });
    // what the person changes is checked again live; the API's word on it no longer holds
    setApiProblems((list) => list.filter((p) => !['content', 'media', 'delay', 'item'].includes(p.where.kind)));
  }

  function updateItem(scope: Scope, key: string, fn: (item: ComposeItem) => ComposeItem) {
    updateItems(scope, (items) => items.map((it) => (it.key === key ? fn(it) : it)));
  }

  /** A template inserted: its text replaces the shared one; its channels' own texts and channels are taken up. */
  function insertTemplate(t: TemplateInsert) {
    setState((s) => {
      const perChannel = { ...s.perChannel };
      for (const [id, items] of Object.entries(t.own)) perChannel[id] = { ...perChannel[id], custom: true, items };
      return { ...s, shared: t.shared, perChannel, channels: [...s.channels, ...t.channels.filter((id) => !s.channels.includes(id))] };
    });
    setTab(SHARED);
    setApiProblems([]);
  }

  /** A signature on demand: at the end of the first item of the text shown (shared, or the channel's own). */
  function addSignature(content: string) {
    const scope = tab === SHARED || usesShared(state, tab) ? SHARED : tab;
    updateItems(scope, (items) => (items.length === 0 ? items : [{ ...items[0]!, text: appendSignature(items[0]!.text, content) }, ...items.slice(1)]));
  }

  /**
   * "Use this" on a writing-help suggestion: its text (and thread items) replaces the text of its
   * channel — a channel on the shared text gets its own text first, as "Its own text" does, unless
   * it is the post's only channel — or, for a suggestion for no channel, the text shown. Media stay
   * on the item at the same place. Hashtags are added at the end of the text shown.
   */
  function acceptSuggestion(u: UseSuggestion) {
    const scope: Scope = u.integrationId ?? (tab === SHARED || usesShared(state, tab) ? SHARED : tab);
    const replace = (old: ComposeItem[]): ComposeItem[] =>
      u.items.map((text, j) => ({ key: newKey(), text, media: old[j] ? [...old[j].media] : [], delay: j === 0 ? 0 : (old[j]?.delay ?? 0) }));
    setState((s) => {
      if (u.mode === 'append') {
        const tags = u.items.join(' ');
        const apply = (items: ComposeItem[]) => (items.length === 0 ? items : [{ ...items[0]!, text: appendSignature(items[0]!.text, tags) }, ...items.slice(1)]);
        if (scope === SHARED) return { ...s, shared: apply(s.shared) };
        const own = s.perChannel[scope];
        return own ? { ...s, perChannel: { ...s.perChannel, [scope]: { ...own, items: apply(own.items) } } } : s;
      }
      if (scope === SHARED || (s.channels.length === 1 && s.channels[0] === scope && !s.perChannel[scope]?.custom)) return { ...s, shared: replace(s.shared) };
      const own = s.perChannel[scope];
      const base = own?.custom ? own.items : s.shared;
      return { ...s, perChannel: { ...s.perChannel, [scope]: { ...own, custom: true, items: replace(base) } } };
    });
    setApiProblems((list) => list.filter((p) => !['content', 'media', 'delay', 'item'].includes(p.where.kind)));
  }

  function toggleChannel(id: string) {
    setState((s) => (s.channels.includes(id) ? { ...s, channels: s.channels.filter((x) => x !== id) } : { ...s, channels: [...s.channels, id] }));
    if (tab === id) setTab(SHARED);
    setApiProblems((list) => list.filter((p) => p.channelId !== id));
  }

  function setCustom(id: string, custom: boolean) {
    setState((s) => {
      const own = s.perChannel[id];
      if (!custom) return own ? { ...s, perChannel: { ...s.perChannel, [id]: { ...own, custom: false } } } : s;
      // its own text starts as a copy of the shared one (or what it had before)
      const items = own && own.items.length > 0 ? own.items : s.shared.map((it) => ({ ...it, key: newKey(), media: [...it.media] }));
      return { ...s, perChannel: { ...s.perChannel, [id]: { ...own, custom: true, items } } };
    });
  }

  /**
   * One click from "over the limit" to a fix: the channel gets its own text, a copy of the shared
   * text as it is now (what was over), shown and focused so it can be shortened for that platform only.
   */
  function writeShorter(id: string) {
    setState((s) => ({ ...s, perChannel: { ...s.perChannel, [id]: { ...s.perChannel[id], custom: true, items: s.shared.map((it) => ({ ...it, key: newKey(), media: [...it.media] })) } } }));
    setTab(id);
    setFocusPanel(id);
  }
  const [focusPanel, setFocusPanel] = useState<string | null>(null);
  useEffect(() => {
    if (!focusPanel) return;
    document.querySelector<HTMLTextAreaElement>(`[data-compose-panel="${CSS.escape(focusPanel)}"] textarea`)?.focus();
    setFocusPanel(null);
  }, [focusPanel, tab]);

  /** A channel's own "Shorten links"; the same as the whole post's: it follows the post's again. */
  function setChannelShortLink(id: string, on: boolean) {
    setState((s) => {
      const base = { custom: false, items: [], ...s.perChannel[id] };
      const { shortLink: _old, ...rest } = base;
      return { ...s, perChannel: { ...s.perChannel, [id]: on === (s.shortLink === true) ? rest : { ...rest, shortLink: on } } };
    });
  }

  function setSettings(id: string, settings: Record<string, unknown>) {
    // a report of the data the form was given (rjsf may send one when its props change) is no change
    if (sameSettings(state.perChannel[id]?.settings ?? withoutTypeTag(rulesOf[id]?.defaults ?? {}), settings)) return;
    setState((s) => ({ ...s, perChannel: { ...s.perChannel, [id]: { custom: false, items: [], ...s.perChannel[id], settings } } }));
    setApiProblems((list) => list.filter((p) => !(p.channelId === id && p.where.kind === 'settings')));
  }

  async function findSlot() {
    const id = slotChannel || state.channels[0];
    if (!id) return;
    setSlotBusy(true);
    setSlotNote(undefined);
    try {
      const { date } = await unwrap(api.GET('/find-slot/{id}', { params: { path: { id } } }));
      const parts = partsInZone(date, tz);
      when.setValue('date', parts.date, { shouldValidate: true });
      when.setValue('time', parts.time, { shouldValidate: true });
      setSlotNote({ text: `Next free slot of ${byId.get(id)?.name ?? 'the channel'}: ${formatDateTime(date, tz)}` });
    } catch (e) {
      setSlotNote({ text: e instanceof Error ? e.message : 'No free slot found', bad: true });
    } finally {
      setSlotBusy(false);
    }
  }

  /**
   * "Add to queue": the post goes to the earliest next free slot among the selected channels'
   * (GET /find-slot: a posting time of the channel at which the organisation has no post yet),
   * scheduled there at once; the notice says which time and whose slot it was.
   */
  async function addToQueue() {
    if (state.channels.length === 0) {
      setFailure(new Error('Choose at least one channel.'));
      return;
    }
    setSlotBusy(true);
    setSlotNote(undefined);
    try {
      const found = await Promise.all(
        state.channels.map(async (id) => ({ id, date: (await unwrap(api.GET('/find-slot/{id}', { params: { path: { id } } }))).date })),
      );
      const next = found.reduce((a, b) => (Date.parse(b.date) < Date.parse(a.date) ? b : a));
      const name = byId.get(next.id)?.name ?? 'the channel';
      const parts = partsInZone(next.date, tz);
      when.setValue('date', parts.date, { shouldValidate: true });
      when.setValue('time', parts.time, { shouldValidate: true });
      setSlotNote({ text: `Next open slot of ${name}: ${formatDateTime(next.date, tz)}` });
      submit('schedule', next.date, name);
    } catch (e) {
      setSlotNote({ text: e instanceof Error ? e.message : 'No free slot found', bad: true });
    } finally {
      setSlotBusy(false);
    }
  }

  // ---- submit -------------------------------------------------------------------------------

  function submit(type: PostType, date: string | undefined, queuedAt?: string, forApproval = false) {
    setFailure(null);
    setRefused(false);
    setApiProblems([]);
    if (state.channels.length === 0) {
      setFailure(new Error('Choose at least one channel.'));
      return;
    }
    if (type !== 'draft' || forApproval) {
      setChecked(true);
      const local = localProblems(state, rulesOf, channels, shortLinkLength);
      if (local.length > 0) {
        setTab(tabFor(local[0]!));
        setRefused(true);
        setRefusals((n) => n + 1);
        return;
      }
    }
    save.mutate({ ...buildPostsBody(withAutoSignatures(state, signatures.data ?? []), { type, date, rules: rulesOf }), type, ...(queuedAt ? { queuedAt } : {}), ...(forApproval ? { forApproval } : {}) });
  }

  /** Saving with "Repeat" on: a series from the chosen local date and time (schedule or draft). */
  function submitSeries(type: 'schedule' | 'draft', w: When) {
    setFailure(null);
    setRefused(false);
    setApiProblems([]);
    if (state.channels.length === 0) {
      setFailure(new Error('Choose at least one channel.'));
      return;
    }
    setChecked(true);
    const local = type === 'schedule' ? localProblems(state, rulesOf, channels, shortLinkLength) : [];
    const ruleLocal = repeatProblems(repeat, w.date);
    if (local.length > 0 || Object.keys(ruleLocal).length > 0) {
      if (local[0]) setTab(tabFor(local[0]));
      setRefused(true);
      setRefusals((n) => n + 1);
      return;
    }
    const { body, order } = buildPostsBody(withAutoSignatures(state, signatures.data ?? []), { type, date: undefined, rules: rulesOf });
    saveSeries.mutate({ body: { rule: buildRule(repeat, w, tz), type, shortLink: body.shortLink, tags: body.tags, posts: body.posts }, order });
  }

  function act(type: PostType) {
    if (repeating && (type === 'schedule' || type === 'draft')) {
      void when.handleSubmit((w) => submitSeries(type, w))();
      return;
    }
    if (type === 'now') {
      submit(type, undefined);
      return;
    }
    if (type === 'schedule' && needsApproval) {
      // checked as a schedule is, saved as a draft for the chosen time, then submitted for approval
      void when.handleSubmit((w) => submit('draft', instantFromZone(w.date, w.time, tz), undefined, true))();
      return;
    }
    void when.handleSubmit((w) => submit(type, instantFromZone(w.date, w.time, tz)))();
  }

  useEffect(() => {
    if (refusals > 0) reveal(tab, false);
    // only after a refusal, in the tab it switched to
  }, [refusals]);

  // ---- where problems show ------------------------------------------------------------------

  function itemProblems(scope: Scope, index: number): ItemProblem[] {
    return problems.flatMap((p) => {
      const w = p.where;
      if (!('item' in w) || !itemFields.has(w.kind) || w.item !== index || !p.channelId) return [];
      const shared = usesShared(state, p.channelId);
      if (scope === SHARED ? !shared : shared || p.channelId !== scope) return [];
      const name = byId.get(p.channelId)?.name;
      return [{ field: w.kind, message: scope === SHARED && name ? `${name}: ${p.message}` : p.message }];
    });
  }
  const channelProblems = (id: string) => problems.filter((p) => p.channelId === id);
  const dateProblems = problems.filter((p) => p.where.kind === 'date');
  const sharedCount = problems.filter((p) => p.channelId && usesShared(state, p.channelId) && itemFields.has(p.where.kind)).length;

  function targetsFor(scope: Scope, index: number): Target[] {
    const ids = scope === SHARED ? state.channels.filter((id) => usesShared(state, id)) : [scope];
    return ids
      .filter((id) => index === 0 || threadSupported(rulesOf[id]))
      .map((id) => byId.get(id))
      .filter((c): c is Integration => c !== undefined)
      .map((channel) => ({ channel, rules: rulesOf[channel.id] }));
  }

  function itemEditors(scope: Scope, items: ComposeItem[], channelName?: string) {
    const threads = scope === SHARED ? state.channels.some((id) => usesShared(state, id) && threadSupported(rulesOf[id])) || state.channels.length === 0 : threadSupported(rulesOf[scope]);
    const shown = threads ? items : items.slice(0, 1);
    const suffix = channelName ? ` for ${channelName}` : '';
    return (
      <>
        {shown.map((item, j) => (
          <ItemEditor
            key={item.key}
            item={item}
            index={j}
            label={j === 0 ? `Post text${suffix}` : `Thread item ${j}${suffix}`}
            targets={targetsFor(scope, j)}
            shortLinkLengthFor={shortFor}
            problems={itemProblems(scope, j)}
            onText={(text) => updateItem(scope, item.key, (it) => ({ ...it, text }))}
            onDelay={(delay) => updateItem(scope, item.key, (it) => ({ ...it, delay }))}
            onMedia={(fn: (m: AttachedMedia[]) => AttachedMedia[]) => updateItem(scope, item.key, (it) => ({ ...it, media: fn(it.media) }))}
            {...(j > 0 ? { onRemove: () => updateItems(scope, (list) => list.filter((x) => x.key !== item.key)) } : {})}
            {...(scope === SHARED ? { onShorten: writeShorter } : {})}
          />
        ))}
        {threads ? (
          <Button variant="secondary" className="compose-add-item" onClick={() => updateItems(scope, (list) => [...list, emptyItem()])}>
            + Add thread item
          </Button>
        ) : null}
      </>
    );
  }

  const signedState = withAutoSignatures(state, signatures.data ?? []);
  /** the text the tab shows (the shared text, or the open channel's own): what writing help starts from */
  const shownScope: Scope = tab === SHARED || usesShared(state, tab) ? SHARED : tab;
  const shownItems = shownScope === SHARED ? state.shared : (state.perChannel[shownScope]?.items ?? []);
  const sharedUsers = selected.filter((c) => usesShared(state, c.id));
  const noThreads = sharedUsers.filter((c) => rulesOf[c.id] && !threadSupported(rulesOf[c.id]));
  const published = state.edit?.published ?? false;
  const busy = save.isPending || saveSeries.isPending;
  const locked = new Set(Object.keys(state.edit?.rowIds ?? {}));

  const missingList = draftEntries.flatMap(([channelId], i) => {
    const q = missingQueries[i];
    return (q?.data?.missing ?? []).map((m) => ({ channelId, text: `${describeWhere(locateInPost(m.field))}: ${m.message}` }));
  });
  const missingLoaded = draftEntries.length > 0 && missingQueries.every((q) => q.data);

  return (
    <div className="compose" ref={root}>
      {restoredAt ? (
        <div className="notice notice-info compose-restored" role="status">
          <span>Restored your unsaved draft from {formatDateTime(restoredAt, tz)}.</span>
          <Button variant="secondary" className="compose-small" onClick={discardRestored}>
            Discard draft
          </Button>
        </div>
      ) : null}
      <fieldset className="compose-channels">
        <legend>Channels</legend>
        {integrations.isPending ? <Spinner label="Loading channels" /> : null}
        <ErrorNotice error={integrations.error} />
        {integrations.data && channels.length === 0 ? <p className="hint">No channels yet: connect one on the Channels page first.</p> : null}
        <ul className="compose-chips">
          {channels.map((c) => {
            const on = state.channels.includes(c.id);
            const why = unavailable(c);
            const isLocked = locked.has(c.id);
            return (
              <li key={c.id}>
                <button
                  type="button"
                  className={`compose-chip${on ? ' on' : ''}`}
                  aria-pressed={on}
                  disabled={(Boolean(why) && !on) || isLocked}
                  onClick={() => toggleChannel(c.id)}
                  title={isLocked ? 'Part of the post being edited (delete it from the post page)' : (why ?? `${c.name} on ${platformName(c.identifier)}`)}
                >
                  <Avatar channel={c} size="sm" />
                  <span className="compose-chip-text">
                    <span className="compose-chip-name">{c.name}</span>
                    <span className="compose-chip-sub">{why ? why : `${platformName(c.identifier)}${c.sandbox ? ' · Sandbox' : ''}`}</span>
                  </span>
                </button>
              </li>
            );
          })}
        </ul>
      </fieldset>

      <div className="compose-body">
        <div className="compose-editor">
          <fieldset className="compose-when">
            <legend>When</legend>
            <div className="compose-when-row">
              <Field label="Date" error={when.formState.errors.date?.message ?? dateProblems[0]?.message}>
                {(p) => <input {...p} type="date" className="input" {...when.register('date', { onChange: () => setApiProblems((l) => l.filter((x) => x.where.kind !== 'date')) })} />}
              </Field>
              <Field label="Time" error={when.formState.errors.time?.message}>
                {(p) => <input {...p} type="time" className="input" {...when.register('time')} />}
              </Field>
              <div className="compose-slot">
                {state.channels.length > 1 ? (
                  <select className="compose-slot-channel" aria-label="Channel for the next free slot" value={slotChannel || state.channels[0]} onChange={(e) => setSlotChannel(e.target.value)}>
                    {selected.map((c) => (
                      <option key={c.id} value={c.id}>
                        {c.name}
                      </option>
                    ))}
                  </select>
                ) : null}
                <Button variant="secondary" onClick={() => void findSlot()} disabled={state.channels.length === 0 || slotBusy}>
                  Next free slot
                </Button>
              </div>
            </div>
            <p className="hint">
              In {tz}
              {whenIso ? (
                <>
                  {' '}
                  · <span title={utcTitle(whenIso)}>{utcTitle(whenIso)}</span>
                  {new Date(whenIso).getTime() < Date.now() ? (repeating ? ' · this time has passed: repeating starts at the next time after now' : ' · this time has passed: scheduling publishes at once') : ''}
                </>
              ) : null}
            </p>
            {slotNote ? (
              <p className={slotNote.bad ? 'error' : 'hint'} role="status">
                {slotNote.text}
              </p>
            ) : null}
            {canRepeat ? (
              <RepeatControl
                value={repeat}
                onChange={(next) => {
                  setRepeat(next);
                  setApiProblems((l) => l.filter((x) => !(x.where.kind === 'other' && /^rule(\.|$)/.test(x.where.path))));
                }}
                start={whenSchema.safeParse(whenValues).success ? { date: whenValues.date, time: whenValues.time } : undefined}
                timeZone={tz}
                errors={ruleErrors}
              />
            ) : null}
          </fieldset>

          {draftEntries.length > 0 ? (
            missingLoaded && missingList.length === 0 ? (
              <Notice kind="ok">This draft has everything it needs to be scheduled.</Notice>
            ) : missingList.length > 0 ? (
              <Notice>
                <strong>What still keeps this draft from publishing</strong>
                <ul className="compose-missing">
                  {missingList.map((m, i) => (
                    <li key={i}>
                      {byId.get(m.channelId)?.name ?? 'Channel'} · {m.text}
                    </li>
                  ))}
                </ul>
              </Notice>
            ) : null
          ) : null}
          {published ? <Notice>Part of this post is already published: saving changes Tidings’ record only; nothing changes on the platforms.</Notice> : null}

          <TemplateControls state={state} selected={selected} isNew={!state.edit} known={new Set(channels.filter((c) => !unavailable(c)).map((c) => c.id))} onInsert={insertTemplate} onSignature={addSignature} />

          <div className="compose-short-links">
            <label className="compose-switch">
              <input type="checkbox" role="switch" checked={state.shortLink === true} onChange={(e) => setState((s) => ({ ...s, shortLink: e.target.checked }))} aria-describedby="compose-short-links-hint" /> Shorten links
            </label>
            <span className="hint" id="compose-short-links-hint">
              {state.shortLink !== true
                ? state.channels.some((id) => shortLinkOn(state, id))
                  ? 'Links go out as written, except on the channels set to shorten them.'
                  : 'Links go out as written.'
                : shortLinks.error
                  ? `Links are shortened when the post is published; the length of a short link is not known (${shortLinks.error instanceof Error ? shortLinks.error.message : 'no answer'}).`
                  : shortLinkLength !== undefined
                    ? `Links are shortened when the post is published; each counts as ${shortLinkLength} characters.`
                    : 'Links are shortened when the post is published.'}
            </span>
          </div>

          <WritingHelp
            selected={selected}
            rulesOf={rulesOf}
            sourceText={shownItems.map((it) => it.text.trim()).filter(Boolean).join('\n\n')}
            sourceName={shownScope === SHARED ? 'All channels' : (byId.get(shownScope)?.name ?? 'this channel')}
            shortLinkLengthFor={shortFor}
            onUse={acceptSuggestion}
          />

          <Tabs.Root value={tab} onValueChange={setTab} className="compose-tabs">
            <Tabs.List className="compose-tablist" aria-label="Text per channel">
              <Tabs.Trigger value={SHARED} className="compose-tab">
                All channels
                {sharedCount > 0 ? <ProblemCount n={sharedCount} /> : null}
              </Tabs.Trigger>
              {selected.map((c) => {
                const n = channelProblems(c.id).filter((p) => !(usesShared(state, c.id) && itemFields.has(p.where.kind))).length;
                return (
                  <Tabs.Trigger key={c.id} value={c.id} className="compose-tab">
                    <Avatar channel={c} size="sm" />
                    {c.name}
                    {!usesShared(state, c.id) ? <span className="compose-tab-own">own text</span> : null}
                    {n > 0 ? <ProblemCount n={n} /> : null}
                  </Tabs.Trigger>
                );
              })}
            </Tabs.List>

            <Tabs.Content value={SHARED} className="compose-tabpanel" forceMount hidden={tab !== SHARED} data-compose-panel={SHARED}>
              {state.channels.length > 0 && sharedUsers.length === 0 ? <p className="hint">Every selected channel has its own text; this text is not sent.</p> : null}
              {itemEditors(SHARED, state.shared)}
              {noThreads.length > 0 && state.shared.length > 1 ? (
                <p className="hint">
                  {names(noThreads.map((c) => c.name))} {noThreads.length > 1 ? 'have' : 'has'} no replies or comments: only the first item goes there.
                </p>
              ) : null}
            </Tabs.Content>

            {selected.map((c) => {
              const rules = rulesOf[c.id];
              const own = state.perChannel[c.id];
              const custom = Boolean(own?.custom);
              const mine = channelProblems(c.id);
              const extra = settingsErrorTree(mine);
              const mineMissing = missingList.filter((m) => m.channelId === c.id);
              return (
                <Tabs.Content key={c.id} value={c.id} className="compose-tabpanel" forceMount hidden={tab !== c.id} data-compose-panel={c.id}>
                  <div className="compose-channel-head">
                    <Avatar channel={c} />
                    <div>
                      <strong>{c.name}</strong>
                      <div className="hint compose-channel-sub">
                        {platformName(c.identifier)}
                        {c.profile ? ` · @${c.profile.replace(/^@/, '')}` : ''}
                      </div>
                    </div>
                  </div>
                  {rules?.rules ? <p className="hint compose-rules">{rules.rules}</p> : null}
                  {mine.length > 0 ? (
                    <Notice kind="bad">
                      <strong>Problems on {c.name}</strong>
                      <ul className="compose-problems">
                        {mine.map((p, i) => (
                          <li key={i}>
                            {describeWhere(p.where)}: {p.message}
                          </li>
                        ))}
                      </ul>
                    </Notice>
                  ) : null}
                  {mineMissing.length > 0 ? (
                    <Notice>
                      <strong>Still missing for this draft</strong>
                      <ul className="compose-missing">
                        {mineMissing.map((m, i) => (
                          <li key={i}>{m.text}</li>
                        ))}
                      </ul>
                    </Notice>
                  ) : null}
                  <fieldset className="compose-mode">
                    <legend className="visually-hidden">Text for {c.name}</legend>
                    <label>
                      <input type="radio" name={`mode-${c.id}`} checked={!custom} onChange={() => setCustom(c.id, false)} /> Use the shared text
                    </label>
                    <label>
                      <input type="radio" name={`mode-${c.id}`} checked={custom} onChange={() => setCustom(c.id, true)} /> Its own text
                    </label>
                  </fieldset>
                  {custom && own ? itemEditors(c.id, own.items, c.name) : <p className="hint">{c.name} gets the text written under “All channels”.</p>}
                  <label className="compose-switch compose-channel-short">
                    <input type="checkbox" role="switch" checked={shortLinkOn(state, c.id)} onChange={(e) => setChannelShortLink(c.id, e.target.checked)} /> Shorten links on {c.name}
                  </label>
                  {state.perChannel[c.id]?.shortLink !== undefined ? <span className="hint"> (not as the rest of the post)</span> : null}
                  <h3 className="compose-h3">Settings</h3>
                  {!rules ? (
                    rulesError ? <ErrorNotice error={rulesError} /> : <Spinner label="Loading the channel’s rules" />
                  ) : typeof rules.settings === 'string' ? (
                    <p className="hint">No additional settings required.</p>
                  ) : (
                    <Suspense fallback={<Spinner label="Loading the settings form" />}>
                      <SettingsForm
                        schema={rules.settings}
                        formData={own?.settings ?? withoutTypeTag(rules.defaults)}
                        onChange={(d) => setSettings(c.id, d)}
                        {...(extra ? { extraErrors: extra } : {})}
                        idPrefix={`settings-${c.id}`}
                      />
                    </Suspense>
                  )}
                </Tabs.Content>
              );
            })}
          </Tabs.Root>
        </div>

        <aside className="compose-preview" aria-label="Previews">
          <h3 className="compose-h3">Preview</h3>
          {selected.length === 0 ? <p className="hint">Choose one or more channels to see how the post will look on each.</p> : null}
          {selected.map((c) => {
            const rules = rulesOf[c.id];
            const all = usesShared(state, c.id) ? state.shared : (state.perChannel[c.id]?.items ?? []);
            // as it will be sent: with the channel's auto-add signature on a new post
            const items = itemsFor(signedState, c.id, rules);
            return <PreviewCard key={c.id} channel={c} rules={rules} items={items} dropped={all.length - items.length} shortLinkLength={shortFor(c.id)} when={whenIso ? { label: formatDateTime(whenIso, tz), title: utcTitle(whenIso) } : undefined} />;
          })}
        </aside>
      </div>

      <div className="compose-footer">
        <div className="compose-status">
          {(refused && problems.length > 0) || failure ? (
            <div className="notice notice-bad" role="alert">
              <strong>
                {refused
                  ? `Not sent: ${problems.length === 1 ? 'one thing needs' : `${problems.length} things need`} fixing first.`
                  : failure instanceof ApiFailure && problems.length > 0
                    ? `Not sent: the service refused ${problems.length === 1 ? 'one field' : `${problems.length} fields`}.`
                    : failure instanceof Error
                      ? failure.message
                      : 'Not sent.'}
              </strong>
              {problems.length > 0 ? (
                <ul className="compose-problems">
                  {problems.map((p, i) => {
                    const c = p.channelId ? byId.get(p.channelId) : undefined;
                    const target = tabFor(p);
                    return (
                      <li key={i}>
                        <button
                          type="button"
                          className="compose-link-button"
                          onClick={() => {
                            setTab(target);
                            reveal(target, true);
                          }}
                        >
                          {c ? `${c.name} · ` : ''}
                          {whereName(p.where)}
                        </button>
                        : {p.message}
                      </li>
                    );
                  })}
                </ul>
              ) : null}
            </div>
          ) : rulesError ? (
            <ErrorNotice error={rulesError} />
          ) : null}
          {rulesPending && state.channels.length > 0 ? <Spinner label="Loading the channels’ rules" /> : null}
        </div>
        <div className="compose-actions">
          {published ? (
            <Button onClick={() => act('update')} disabled={busy || rulesPending}>
              Save changes
            </Button>
          ) : (
            <>
              <Button variant="secondary" onClick={() => act('draft')} disabled={busy || rulesPending}>
                Save as draft
              </Button>
              {repeating || needsApproval ? null : (
                <>
                  <Button variant="secondary" onClick={() => act('now')} disabled={busy || rulesPending}>
                    Post now
                  </Button>
                  <Button
                    variant="secondary"
                    onClick={() => void addToQueue()}
                    disabled={busy || rulesPending || slotBusy}
                    title="Schedule it at the next open posting time of the selected channels"
                  >
                    Add to queue
                  </Button>
                </>
              )}
              <Button onClick={() => act('schedule')} disabled={busy || rulesPending} title={needsApproval && approvalCheck.data?.rule ? `Approval rule “${approvalCheck.data.rule.name}”` : undefined}>
                {repeating ? 'Schedule repeating' : needsApproval ? 'Submit for approval' : 'Schedule'}
              </Button>
            </>
          )}
          {busy ? <Spinner label="Saving" /> : null}
        </div>
      </div>
    </div>
  );
}
