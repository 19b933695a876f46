import { useQuery } from '@tanstack/react-query';
import { useEffect, useId, useRef, useState } from 'react';
import { Link } from 'react-router';
import { ApiFailure } from '../../api/client.js';
import type { Integration } from '../../api/queries.js';
import { Button, ErrorNotice, Field, Notice, Spinner, TextInput } from '../../components/ui.js';
import { platformName } from '../../lib/platforms.js';
import { getAiSettings, linkKeys } from '../settings/links-ai-api.js';
import { runAiAction, type AiAction, type AiRequest, type Suggestion } from './ai-stream.js';
import { countingUnit, lengthOnPlatform } from './counting.js';
import type { Rules } from './model.js';
import './writing-help.css';

/**
 * Writing help in the composer (issue 32): the organisation's own model drafts, rewrites per
 * platform, splits into a thread, suggests hashtags and translates. Answers stream in as
 * suggestions; each is editable, counted against its channel's limit, and put into the post only
 * by "Use this" (a suggestion over the limit cannot be used). Nothing is saved here: the post is
 * saved or scheduled as usual.
 */

/** What "Use this" puts into the post: the text (its thread items) for a channel, or for all. */
export interface UseSuggestion {
  /** the channel the suggestion is for; null: the text shown (shared or the open channel's) */
  integrationId: string | null;
  /** the first item and, for a thread, the items after it */
  items: string[];
  /** hashtags are added at the end of the text; everything else replaces it */
  mode: 'replace' | 'append';
}

const ACTIONS: { id: Exclude<AiAction, 'alt-text'>; label: string; hint: string }[] = [
  { id: 'draft', label: 'Draft', hint: 'A post from a short brief, for each selected channel.' },
  { id: 'rewrite', label: 'Rewrite', hint: 'The text shown, rewritten for each selected channel within its limit.' },
  { id: 'thread', label: 'Thread', hint: 'The text shown, split into a thread for one channel.' },
  { id: 'hashtags', label: 'Hashtags', hint: 'Hashtags for the text shown, added at its end.' },
  { id: 'translate', label: 'Translate', hint: 'The text shown, in another language.' },
];

/** A suggestion as shown: the API's, the person's edits, and whether it is still streaming. */
interface Shown extends Suggestion {
  /** the parts as edited (content alone, or the thread's items) */
  parts: string[];
  edited: boolean;
}

function partsOf(s: Suggestion, action: AiAction): string[] {
  return action === 'thread' && s.items && s.items.length > 0 ? [...s.items] : [s.content];
}

function blank(integrationId: string | null): Shown {
  return { integrationId, platform: null, content: '', length: null, maxLength: null, fits: false, parts: [''], edited: false };
}

/** The length of each part on the channel (with its rules) and whether all fit. */
function measure(parts: string[], rules: Rules | undefined, shortLinkLength: number | undefined): { lengths: number[]; max: number; fits: boolean } | undefined {
  if (!rules) return undefined;
  const lengths = parts.map((p) => lengthOnPlatform(p, rules.counting, shortLinkLength));
  return { lengths, max: rules.maxLength, fits: lengths.every((n) => n <= rules.maxLength) && parts.some((p) => p.trim() !== '') };
}

export function WritingHelp({
  selected,
  rulesOf,
  sourceText,
  sourceName,
  shortLinkLengthFor,
  onUse,
}: {
  /** the channels chosen for the post */
  selected: Integration[];
  rulesOf: Record<string, Rules | undefined>;
  /** the text shown in the composer (the shared text, or the open channel's own) */
  sourceText: string;
  /** where that text is ("All channels", a channel's name) */
  sourceName: string;
  /** what a URL counts as on a channel (the short link's length where its links are shortened) */
  shortLinkLengthFor?: (channelId: string) => number | undefined;
  onUse: (use: UseSuggestion) => void;
}) {
  const id = useId();
  const [open, setOpen] = useState(false);
  const [action, setAction] = useState<Exclude<AiAction, 'alt-text'>>('rewrite');
  const [brief, setBrief] = useState('');
  const [tone, setTone] = useState('');
  const [language, setLanguage] = useState('');
  const [instructions, setInstructions] = useState('');
  const [threadChannel, setThreadChannel] = useState('');
  const [hashtagChannel, setHashtagChannel] = useState('');
  const [count, setCount] = useState(5);
  const [missing, setMissing] = useState<string>();
  const [running, setRunning] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [shown, setShown] = useState<Shown[]>([]);
  const [ranAction, setRanAction] = useState<AiAction>('rewrite');
  const [used, setUsed] = useState<string>();
  const abort = useRef<AbortController | null>(null);
  useEffect(() => () => abort.current?.abort(), []);

  const settings = useQuery({ queryKey: linkKeys.aiSettings, queryFn: getAiSettings, enabled: open, staleTime: 60_000 });
  const off = settings.data?.configured === false || (error instanceof ApiFailure && error.body.code === 'AI_NOT_CONFIGURED');
  const byId = new Map(selected.map((c) => [c.id, c]));
  const threadable = selected.filter((c) => rulesOf[c.id]?.thread.supported !== false);
  const threadId = threadable.some((c) => c.id === threadChannel) ? threadChannel : (threadable[0]?.id ?? '');

  /** The request body of the chosen action, or what is missing for it. */
  function request(): { req: AiRequest; ids: (string | null)[] } | string {
    const ids = selected.map((c) => c.id);
    const text = sourceText.trim();
    switch (action) {
      case 'draft':
        if (!brief.trim()) return 'Write a brief first: what the post is about.';
        return { req: { action: 'draft', body: { brief: brief.trim(), ...(ids.length > 0 ? { integrationIds: ids } : {}), ...(tone.trim() ? { tone: tone.trim() } : {}), ...(language.trim() ? { language: language.trim() } : {}) } }, ids: ids.length > 0 ? ids : [null] };
      case 'rewrite':
        if (!text) return `Write some text under “${sourceName}” first: Rewrite starts from it.`;
        if (ids.length === 0) return 'Choose the channels to rewrite for.';
        return { req: { action: 'rewrite', body: { content: text, integrationIds: ids, ...(instructions.trim() ? { instructions: instructions.trim() } : {}) } }, ids };
      case 'thread':
        if (!text) return `Write some text under “${sourceName}” first: it is split into the thread.`;
        if (!threadId) return selected.length === 0 ? 'Choose a channel first.' : 'None of the selected channels has threads.';
        return { req: { action: 'thread', body: { content: text, integrationId: threadId } }, ids: [threadId] };
      case 'hashtags': {
        if (!text) return `Write some text under “${sourceName}” first: hashtags are found for it.`;
        const ch = byId.has(hashtagChannel) ? hashtagChannel : '';
        return { req: { action: 'hashtags', body: { content: text, ...(ch ? { integrationId: ch } : {}), count } }, ids: [ch || null] };
      }
      case 'translate':
        if (!text) return `Write some text under “${sourceName}” first: it is what gets translated.`;
        if (!language.trim()) return 'Name the language to translate into.';
        return { req: { action: 'translate', body: { content: text, language: language.trim(), ...(ids.length > 0 ? { integrationIds: ids } : {}) } }, ids: ids.length > 0 ? ids : [null] };
    }
  }

  async function run() {
    const req = request();
    if (typeof req === 'string') {
      setMissing(req);
      return;
    }
    setMissing(undefined);
    setError(null);
    setUsed(undefined);
    abort.current?.abort();
    const ctrl = new AbortController();
    abort.current = ctrl;
    setRunning(true);
    setRanAction(action);
    setShown(req.ids.map(blank));
    try {
      const out = await runAiAction(req.req, {
        signal: ctrl.signal,
        onDelta: (index, text) =>
          setShown((list) => {
            const next = [...list];
            while (next.length <= index) next.push(blank(null));
            const s = next[index]!;
            const content = s.content + text;
            next[index] = { ...s, content, parts: [content] };
            return next;
          }),
      });
      if (ctrl.signal.aborted) return;
      setShown(out.map((s) => ({ ...s, parts: partsOf(s, action), edited: false })));
    } catch (e) {
      if (ctrl.signal.aborted) return;
      setError(e);
      setShown([]);
    } finally {
      if (abort.current === ctrl) {
        abort.current = null;
        setRunning(false);
      }
    }
  }

  function stop() {
    abort.current?.abort();
    abort.current = null;
    setRunning(false);
    setShown([]);
  }

  function edit(index: number, part: number, text: string) {
    setShown((list) => list.map((s, i) => (i === index ? { ...s, parts: s.parts.map((p, j) => (j === part ? text : p)), edited: true } : s)));
  }

  function use(s: Shown, name: string) {
    const integrationId = s.integrationId && byId.has(s.integrationId) ? s.integrationId : null;
    const items = ranAction === 'hashtags' ? [(s.items && s.items.length > 0 && !s.edited ? s.items.join(' ') : s.parts.join(' ')).trim()] : s.parts;
    // hashtags go on the text shown, whatever channel they were found for
    onUse({ integrationId: ranAction === 'hashtags' ? null : integrationId, items, mode: ranAction === 'hashtags' ? 'append' : 'replace' });
    setUsed(`Used the suggestion for ${name}.`);
  }

  const current = ACTIONS.find((a) => a.id === action)!;
  return (
    <section className="writing-help" aria-labelledby={`${id}-title`}>
      <div className="writing-help-head">
        <h3 className="compose-h3" id={`${id}-title`}>
          <button type="button" className="writing-help-toggle" aria-expanded={open} aria-controls={`${id}-panel`} onClick={() => setOpen((o) => !o)}>
            <span aria-hidden="true">{open ? '▾' : '▸'}</span> Writing help
          </button>
        </h3>
      </div>
      {open ? (
        <div id={`${id}-panel`} className="writing-help-panel">
          {settings.isPending ? <Spinner label="Checking writing help" /> : null}
          {off ? (
            <Notice>
              Writing help is off — set a model in <Link to="/settings/writing-help">Settings → Writing help</Link>.
            </Notice>
          ) : settings.data || settings.error ? (
            <>
              <fieldset className="writing-help-actions">
                <legend className="visually-hidden">What to do</legend>
                {ACTIONS.map((a) => (
                  <label key={a.id} className={`writing-help-action${action === a.id ? ' on' : ''}`}>
                    <input
                      type="radio"
                      name={`${id}-action`}
                      value={a.id}
                      checked={action === a.id}
                      onChange={() => {
                        setAction(a.id);
                        setMissing(undefined);
                      }}
                    />{' '}
                    {a.label}
                  </label>
                ))}
              </fieldset>
              <p className="hint writing-help-hint">
                {current.hint}
                {action !== 'draft' ? ` From: ${sourceName}.` : ''}
              </p>
              <div className="writing-help-fields">
                {action === 'draft' ? (
                  <>
                    <Field label="Brief">{(p) => <textarea {...p} rows={3} value={brief} onChange={(e) => setBrief(e.target.value)} placeholder="What is the post about?" />}</Field>
                    <div className="writing-help-row">
                      <Field label="Tone (optional)">{(p) => <TextInput {...p} value={tone} onChange={(e) => setTone(e.target.value)} placeholder="friendly, formal…" />}</Field>
                      <Field label="Language (optional)">{(p) => <TextInput {...p} value={language} onChange={(e) => setLanguage(e.target.value)} placeholder="English" />}</Field>
                    </div>
                  </>
                ) : null}
                {action === 'rewrite' ? <Field label="Instructions (optional)">{(p) => <TextInput {...p} value={instructions} onChange={(e) => setInstructions(e.target.value)} placeholder="shorter, more playful…" />}</Field> : null}
                {action === 'thread' ? (
                  <Field label="Thread for">
                    {(p) => (
                      <select {...p} value={threadId} onChange={(e) => setThreadChannel(e.target.value)} disabled={threadable.length === 0}>
                        {threadable.map((c) => (
                          <option key={c.id} value={c.id}>
                            {c.name} ({platformName(c.identifier)})
                          </option>
                        ))}
                      </select>
                    )}
                  </Field>
                ) : null}
                {action === 'hashtags' ? (
                  <div className="writing-help-row">
                    <Field label="For the platform of">
                      {(p) => (
                        <select {...p} value={byId.has(hashtagChannel) ? hashtagChannel : ''} onChange={(e) => setHashtagChannel(e.target.value)}>
                          <option value="">Any platform</option>
                          {selected.map((c) => (
                            <option key={c.id} value={c.id}>
                              {c.name} ({platformName(c.identifier)})
                            </option>
                          ))}
                        </select>
                      )}
                    </Field>
                    <Field label="How many">{(p) => <TextInput {...p} type="number" min={1} max={30} value={count} onChange={(e) => setCount(Math.min(30, Math.max(1, Math.round(Number(e.target.value)) || 1)))} />}</Field>
                  </div>
                ) : null}
                {action === 'translate' ? <Field label="Into the language">{(p) => <TextInput {...p} value={language} onChange={(e) => setLanguage(e.target.value)} placeholder="German, es, 日本語…" />}</Field> : null}
              </div>
              <div className="writing-help-go">
                <Button onClick={() => void run()} disabled={running}>
                  {action === 'draft' ? 'Write a draft' : action === 'rewrite' ? 'Rewrite' : action === 'thread' ? 'Split into a thread' : action === 'hashtags' ? 'Suggest hashtags' : 'Translate'}
                </Button>
                {running ? (
                  <>
                    <Spinner label="Writing" />
                    <Button variant="ghost" onClick={stop}>
                      Stop
                    </Button>
                  </>
                ) : null}
              </div>
              {missing ? (
                <p className="error" role="alert">
                  {missing}
                </p>
              ) : null}
              <ErrorNotice error={error} />
              {used ? (
                <p className="hint" role="status">
                  {used}
                </p>
              ) : null}
              {shown.length > 0 ? (
                <ol className="writing-help-suggestions" aria-label="Suggestions" aria-busy={running}>
                  {shown.map((s, i) => {
                    const channel = s.integrationId ? byId.get(s.integrationId) : undefined;
                    const name = channel ? channel.name : s.platform ? platformName(s.platform) : shown.length > 1 ? `Suggestion ${i + 1}` : 'All channels';
                    return <SuggestionCard key={i} s={s} name={name} channel={channel} rules={channel ? rulesOf[channel.id] : undefined} shortLinkLength={channel ? shortLinkLengthFor?.(channel.id) : undefined} streaming={running} gone={ranAction !== 'hashtags' && s.integrationId !== null && !channel} onEdit={(part, text) => edit(i, part, text)} onUse={() => use(s, name)} />;
                  })}
                </ol>
              ) : null}
            </>
          ) : null}
        </div>
      ) : null}
    </section>
  );
}

function SuggestionCard({
  s,
  name,
  channel,
  rules,
  shortLinkLength,
  streaming,
  gone,
  onEdit,
  onUse,
}: {
  s: Shown;
  name: string;
  channel: Integration | undefined;
  rules: Rules | undefined;
  shortLinkLength: number | undefined;
  streaming: boolean;
  /** its channel was taken off the post meanwhile: nowhere to put it */
  gone: boolean;
  onEdit: (part: number, text: string) => void;
  onUse: () => void;
}) {
  const id = useId();
  const local = measure(s.parts, rules, shortLinkLength);
  // the service's verdict until the person edits it; then the channel's rules decide (the server checks again when the post is saved)
  const fits = s.edited ? (local ? local.fits : s.fits && s.parts.some((p) => p.trim() !== '')) : s.fits;
  const usable = !streaming && fits && !gone;
  const noteId = `${id}-note`;
  const note = gone ? 'Its channel is no longer chosen for this post.' : (s.note ?? (!fits && !streaming ? (s.maxLength !== null && s.length !== null ? `${s.length} of ${s.maxLength} allowed: too long to use` : 'This suggestion cannot be used') : undefined));
  return (
    <li className={`writing-help-suggestion${usable ? '' : ' unusable'}`} aria-label={`Suggestion for ${name}`}>
      <div className="writing-help-suggestion-head">
        <strong>{name}</strong>
        {channel ? <span className="hint"> · {platformName(channel.identifier)}</span> : null}
      </div>
      {s.parts.map((text, j) => {
        const n = local ? local.lengths[j] : s.edited ? undefined : s.length;
        const max = local ? local.max : s.maxLength;
        const label = s.parts.length > 1 ? `Text suggested for ${name}, part ${j + 1}` : `Text suggested for ${name}`;
        return (
          <div key={j} className="writing-help-part">
            <label className="visually-hidden" htmlFor={`${id}-${j}`}>
              {label}
            </label>
            <textarea id={`${id}-${j}`} className="writing-help-text" rows={Math.min(8, Math.max(2, Math.ceil(text.length / 60)))} value={text} readOnly={streaming} onChange={(e) => onEdit(j, e.target.value)} aria-describedby={`${id}-${j}-count${note ? ` ${noteId}` : ''}`} />
            <span id={`${id}-${j}-count`} className={`compose-counter${n !== undefined && n !== null && max !== null && n > max ? ' over' : ''}`} title={rules ? `Counted in ${countingUnit(rules.counting)}` : undefined}>
              {streaming ? 'writing…' : n !== undefined && n !== null && max !== null ? `${n} / ${max}` : n !== undefined && n !== null ? `${n}` : ''}
            </span>
          </div>
        );
      })}
      {s.items && s.items.length > 0 && s.parts.length === 1 && !s.edited ? <p className="hint writing-help-items">{s.items.join(' ')}</p> : null}
      {note ? (
        <p id={noteId} className={fits && !gone ? 'hint' : 'error'}>
          {note}
        </p>
      ) : null}
      <Button variant="secondary" onClick={onUse} disabled={!usable} aria-label={`Use this for ${name}`}>
        Use this
      </Button>
    </li>
  );
}

/**
 * "Suggest alt text" beside an attached image's alt field, when the organisation's model takes
 * images (`vision` in Settings → Writing help): the model describes the image (POST /ai/alt-text);
 * the description is a suggestion, editable, put into the alt field only by "Use this".
 */
export function AltTextHelp({ mediaId, name, onUse }: { mediaId: string; name: string; onUse: (alt: string) => void }) {
  const id = useId();
  const [running, setRunning] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [text, setText] = useState<string>();
  const [fits, setFits] = useState(true);
  const [note, setNote] = useState<string>();
  const abort = useRef<AbortController | null>(null);
  useEffect(() => () => abort.current?.abort(), []);

  async function run() {
    abort.current?.abort();
    const ctrl = new AbortController();
    abort.current = ctrl;
    setRunning(true);
    setError(null);
    setText('');
    setNote(undefined);
    try {
      const [s] = await runAiAction({ action: 'alt-text', body: { mediaId } }, { signal: ctrl.signal, onDelta: (i, t) => i === 0 && setText((x) => (x ?? '') + t) });
      if (ctrl.signal.aborted) return;
      setText(s?.content ?? '');
      setFits(s?.fits ?? false);
      setNote(s?.note);
    } catch (e) {
      if (!ctrl.signal.aborted) {
        setError(e);
        setText(undefined);
      }
    } finally {
      if (abort.current === ctrl) {
        abort.current = null;
        setRunning(false);
      }
    }
  }

  return (
    <div className="writing-help-alt">
      <Button variant="ghost" className="compose-small" onClick={() => void run()} disabled={running} aria-label={`Suggest alt text for ${name}`}>
        Suggest alt text
      </Button>
      {running ? <Spinner label="Describing the image" /> : null}
      <ErrorNotice error={error} />
      {text !== undefined ? (
        <div className="writing-help-alt-suggestion">
          <label className="visually-hidden" htmlFor={`${id}-alt`}>
            Alt text suggested for {name}
          </label>
          <textarea id={`${id}-alt`} className="writing-help-text" rows={2} value={text} readOnly={running} onChange={(e) => setText(e.target.value)} {...(note ? { 'aria-describedby': `${id}-note` } : {})} />
          {note ? (
            <p id={`${id}-note`} className={fits ? 'hint' : 'error'}>
              {note}
            </p>
          ) : null}
          <Button
            variant="secondary"
            className="compose-small"
            disabled={running || !fits || text.trim() === ''}
            onClick={() => {
              onUse(text.trim());
              setText(undefined);
            }}
            aria-label={`Use this alt text for ${name}`}
          >
            Use this
          </Button>
        </div>
      ) : null}
    </div>
  );
}
