import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useRef, useState } from 'react';
import type { Integration } from '../../api/queries.js';
import { uploadFile, type MediaItem } from '../../api/upload.js';
import { Button } from '../../components/ui.js';
import { platformName } from '../../lib/platforms.js';
import { countingUnit, lengthOnPlatform } from './counting.js';
import './shorten.css';
import { isPostable, MediaPicker, MediaThumb } from './MediaPicker.js';
import { mediaMessages, mediaRoom, type AttachedMedia, type ComposeItem, type Rules } from './model.js';
import { getAiSettings, linkKeys } from '../settings/links-ai-api.js';
import { AltTextHelp } from './WritingHelp.js';

/** A channel an item goes to, with its rules once loaded. */
export interface Target {
  channel: Integration;
  rules: Rules | undefined;
}

/** A problem shown on this item's fields. */
export interface ItemProblem {
  field: 'content' | 'media' | 'delay' | 'item';
  message: string;
}

interface Upload {
  key: string;
  name: string;
  fraction: number;
  error?: string;
  abort: AbortController;
}

function fromUpload(m: MediaItem & { type: 'image' | 'video' }): AttachedMedia {
  return { id: m.id, path: m.path, type: m.type, mimeType: m.mimeType, thumbnail: m.thumbnail, alt: m.alt ?? '', name: m.originalName ?? m.name };
}

function fromLibrary(m: MediaItem & { type: 'image' | 'video' }): AttachedMedia {
  return fromUpload(m);
}

/** "n / max" in the channel's own counting, red when over. */
export function Counter({ text, target, onShorten, shortLinkLength }: { text: string; target: Target; onShorten?: (channelId: string) => void; shortLinkLength?: number | undefined }) {
  const { channel, rules } = target;
  if (!rules) return <span className="compose-counter">{channel.name} …</span>;
  const n = lengthOnPlatform(text, rules.counting, shortLinkLength);
  const over = n > rules.maxLength;
  return (
    <span className={`compose-counter${over ? ' over' : ''}`} title={`${platformName(channel.identifier)} counts ${countingUnit(rules.counting)}${shortLinkLength !== undefined ? `; a short link counts as ${shortLinkLength}` : ''}`} data-channel={channel.id}>
      <span className="compose-counter-name">{channel.name}</span>{' '}
      <span className="compose-counter-value">
        {n} / {rules.maxLength}
      </span>
      {over ? <span className="compose-counter-over"> · {n - rules.maxLength} over</span> : null}
      {over && onShorten ? (
        <>
          {' '}
          <button type="button" className="compose-shorten" onClick={() => onShorten(channel.id)}>
            Write a shorter version for {channel.name}
          </button>
        </>
      ) : null}
    </span>
  );
}

/**
 * One post item: its text with a counter per channel it goes to, its media (library or upload,
 * with progress; alt text; the channels' media rules) and, for thread items, the delay.
 */
export function ItemEditor({
  item,
  index,
  label,
  targets,
  problems,
  onText,
  onDelay,
  onMedia,
  onRemove,
  onShorten,
  shortLinkLengthFor,
}: {
  item: ComposeItem;
  index: number;
  label: string;
  targets: Target[];
  problems: ItemProblem[];
  onText: (text: string) => void;
  onDelay: (minutes: number) => void;
  onMedia: (update: (media: AttachedMedia[]) => AttachedMedia[]) => void;
  onRemove?: () => void;
  /** Over a channel's limit in the shared text: opens that channel's own text, prefilled, to shorten there. */
  onShorten?: (channelId: string) => void;
  /** what each URL counts as on a channel (the short link's length where its links are shortened) */
  shortLinkLengthFor?: (channelId: string) => number | undefined;
}) {
  const id = useId();
  const queryClient = useQueryClient();
  const fileInput = useRef<HTMLInputElement>(null);
  const [uploads, setUploads] = useState<Upload[]>([]);
  const [picking, setPicking] = useState(false);
  // uploads still running when the item or the dialog goes are cancelled
  const running = useRef(new Set<AbortController>());
  useEffect(() => {
    const set = running.current;
    return () => {
      for (const a of set) a.abort();
    };
  }, []);
  const textProblems = problems.filter((p) => p.field === 'content' || p.field === 'item');
  const mediaProblems = problems.filter((p) => p.field === 'media');
  const delayProblems = problems.filter((p) => p.field === 'delay');
  const loaded = targets.filter((t): t is Target & { rules: Rules } => t.rules !== undefined);
  const room = mediaRoom(item.media, loaded.map((t) => t.rules));
  // the channels' media rules, live (the API refuses the same for schedule and post now)
  const ruleMessages = [...new Set(loaded.flatMap((t) => mediaMessages(t.rules, item.media, index, platformName(t.channel.identifier))))];
  const noMediaHere = loaded.length > 0 && loaded.every((t) => index > 0 && !t.rules.media.onThreadItems);
  // alt text from the organisation's model, when it takes images (asked only once an image is attached)
  const hasImages = item.media.some((m) => m.type === 'image');
  const ai = useQuery({ queryKey: linkKeys.aiSettings, queryFn: getAiSettings, enabled: hasImages, staleTime: 60_000 });
  const vision = ai.data?.configured === true && ai.data.vision;

  function upload(files: FileList | null) {
    if (!files) return;
    for (const file of Array.from(files)) {
      const key = `${file.name}-${Math.random().toString(36).slice(2)}`;
      const abort = new AbortController();
      running.current.add(abort);
      setUploads((u) => [...u, { key, name: file.name, fraction: 0, abort }]);
      uploadFile(file, (fraction) => setUploads((u) => u.map((x) => (x.key === key ? { ...x, fraction } : x))), abort.signal).then(
        (media) => {
          running.current.delete(abort);
          setUploads((u) => u.filter((x) => x.key !== key));
          if (isPostable(media)) onMedia((list) => [...list, fromUpload(media)]);
          else setUploads((u) => [...u, { key, name: file.name, fraction: 1, abort, error: 'Audio files cannot go in posts (they are music for generated videos)' }]);
          void queryClient.invalidateQueries({ queryKey: ['media'] });
        },
        (e: unknown) => {
          running.current.delete(abort);
          if (e instanceof DOMException && e.name === 'AbortError') setUploads((u) => u.filter((x) => x.key !== key));
          else setUploads((u) => u.map((x) => (x.key === key ? { ...x, error: e instanceof Error ? e.message : 'Upload failed' } : x)));
        },
      );
    }
    if (fileInput.current) fileInput.current.value = '';
  }

  const describedBy = [`${id}-counters`, textProblems.length > 0 ? `${id}-text-error` : ''].filter(Boolean).join(' ');
  return (
    <div className="compose-item">
      <div className="compose-item-head">
        <label htmlFor={`${id}-text`} className="compose-item-label">
          {label}
        </label>
        {onRemove ? (
          <Button variant="ghost" className="compose-small" onClick={onRemove} aria-label={`Remove ${label.toLowerCase()}`}>
            Remove
          </Button>
        ) : null}
      </div>
      <textarea
        id={`${id}-text`}
        className="compose-text"
        value={item.text}
        onChange={(e) => onText(e.target.value)}
        rows={index === 0 ? 6 : 3}
        aria-describedby={describedBy}
        {...(textProblems.length > 0 ? { 'aria-invalid': true } : {})}
        placeholder={index === 0 ? 'What do you want to share?' : 'Reply in the thread…'}
      />
      <div className="compose-counters" id={`${id}-counters`}>
        {targets.map((t) => (
          <Counter key={t.channel.id} text={item.text} target={t} shortLinkLength={shortLinkLengthFor?.(t.channel.id)} {...(onShorten ? { onShorten } : {})} />
        ))}
      </div>
      {textProblems.length > 0 ? (
        <ul className="error compose-field-errors" id={`${id}-text-error`} role="alert">
          {textProblems.map((p, i) => (
            <li key={i}>{p.message}</li>
          ))}
        </ul>
      ) : null}

      {item.media.length > 0 ? (
        <ul className="compose-media" aria-label={`Media of ${label.toLowerCase()}`}>
          {item.media.map((m, k) => (
            <li key={`${m.id}-${k}`} className="compose-media-item">
              <MediaThumb item={m} />
              <input
                className="input compose-alt"
                aria-label={`Alt text for ${m.name ?? `${m.type} ${k + 1}`}`}
                placeholder="Alt text"
                value={m.alt}
                onChange={(e) => {
                  const alt = e.target.value;
                  onMedia((list) => list.map((x, j) => (j === k ? { ...x, alt } : x)));
                }}
              />
              <Button variant="ghost" className="compose-small" aria-label={`Remove ${m.name ?? `${m.type} ${k + 1}`}`} onClick={() => onMedia((list) => list.filter((_x, j) => j !== k))}>
                ✕
              </Button>
              {vision && m.type === 'image' ? <AltTextHelp mediaId={m.id} name={m.name ?? `image ${k + 1}`} onUse={(alt) => onMedia((list) => list.map((x, j) => (j === k ? { ...x, alt } : x)))} /> : null}
            </li>
          ))}
        </ul>
      ) : null}
      {uploads.length > 0 ? (
        <ul className="compose-uploads" aria-label="Uploads">
          {uploads.map((u) => (
            <li key={u.key}>
              <span className="compose-upload-name">{u.name}</span>
              {u.error ? (
                <span className="error" role="alert">
                  {u.error}
                </span>
              ) : (
                <>
                  <progress max={1} value={u.fraction} aria-label={`Uploading ${u.name}`} />
                  <span className="hint">{Math.round(u.fraction * 100)}%</span>
                </>
              )}
              <Button
                variant="ghost"
                className="compose-small"
                onClick={() => (u.error ? setUploads((list) => list.filter((x) => x.key !== u.key)) : u.abort.abort())}
                aria-label={u.error ? `Dismiss ${u.name}` : `Cancel upload of ${u.name}`}
              >
                {u.error ? 'Dismiss' : 'Cancel'}
              </Button>
            </li>
          ))}
        </ul>
      ) : null}
      {[...ruleMessages, ...mediaProblems.map((p) => p.message)].length > 0 ? (
        <ul className="error compose-field-errors" role="alert">
          {[...new Set([...ruleMessages, ...mediaProblems.map((p) => p.message)])].map((m) => (
            <li key={m}>{m}</li>
          ))}
        </ul>
      ) : null}

      <div className="compose-item-tools">
        {noMediaHere ? (
          <span className="hint">Replies on these channels cannot carry media.</span>
        ) : (
          <>
            <Button variant="secondary" className="compose-small" onClick={() => setPicking(true)} disabled={room <= 0}>
              Media library
            </Button>
            <label className={`btn btn-secondary compose-small compose-upload${room <= 0 ? ' disabled' : ''}`}>
              Upload…
              <input
                ref={fileInput}
                type="file"
                className="visually-hidden"
                multiple
                accept="image/*,video/*"
                disabled={room <= 0}
                onChange={(e) => upload(e.target.files)}
                aria-label={`Upload media to ${label.toLowerCase()}`}
              />
            </label>
          </>
        )}
        {index > 0 ? (
          <span className="compose-delay">
            <label htmlFor={`${id}-delay`}>Delay</label>
            <input
              id={`${id}-delay`}
              className="input"
              type="number"
              min={0}
              max={43200}
              step={1}
              value={item.delay}
              onChange={(e) => onDelay(Math.max(0, Number(e.target.value) || 0))}
              aria-describedby={`${id}-delay-hint`}
              {...(delayProblems.length > 0 ? { 'aria-invalid': true } : {})}
            />
            <span className="hint" id={`${id}-delay-hint`}>
              minutes after the previous item
            </span>
            {delayProblems.map((p, i) => (
              <span key={i} className="error" role="alert">
                {p.message}
              </span>
            ))}
          </span>
        ) : null}
      </div>
      <MediaPicker open={picking} onOpenChange={setPicking} room={room} onPick={(items) => onMedia((list) => [...list, ...items.filter(isPostable).map(fromLibrary)])} />
    </div>
  );
}
