import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { useFileDrop } from '../../lib/useFileDrop.js';
import { Link } from 'react-router';
import { api, unwrap } from '../../api/client.js';
import { queryKeys, type MediaItem } from '../../api/queries.js';
import { Button, EmptyState, ErrorNotice, PageHeader, Spinner, StateBadge } from '../../components/ui.js';
import { useTimeZone } from '../../api/session.js';
import { formatDateTime, utcTitle } from '../../lib/time.js';
import { ConfirmButton } from '../settings/common.js';
import { formatBytes, formatSeconds } from './format.js';
import { FINISHED, useUploadQueue, type UploadEntry } from './uploadQueue.js';
import './media.css';

/** What the file picker offers (the server reads the real type from the bytes and says when it refuses one). */
const ACCEPT = 'image/jpeg,image/png,image/gif,image/webp,image/avif,image/tiff,video/mp4,video/quicktime,audio/mpeg,audio/mp4,audio/x-m4a,audio/wav,audio/ogg,audio/flac';

const TYPE_LABEL: Record<MediaItem['type'], string> = { image: 'Image', video: 'Video', audio: 'Audio' };

const displayName = (m: MediaItem) => m.originalName ?? m.name;

function DropZone({ onFiles }: { onFiles: (files: FileList) => void }) {
  const input = useRef<HTMLInputElement>(null);
  const { over, handlers } = useFileDrop(onFiles);

  return (
    <div
      className={`drop-zone${over ? ' over' : ''}`}
      {...handlers}
    >
      <p className="drop-title">{over ? 'Drop to upload' : 'Drag images, videos and music here'}</p>
      <p className="hint">JPEG, PNG, GIF, WebP, AVIF, TIFF, MP4 or QuickTime; MP3, M4A, WAV, Ogg or FLAC for videos' background music; several at once.</p>
      <Button variant="secondary" onClick={() => input.current?.click()}>
        Choose files…
      </Button>
      <input
        ref={input}
        type="file"
        multiple
        accept={ACCEPT}
        className="visually-hidden"
        tabIndex={-1}
        aria-label="Choose files to upload"
        onChange={(e) => {
          if (e.target.files?.length) onFiles(e.target.files);
          e.target.value = '';
        }}
      />
    </div>
  );
}

const STATUS_TEXT: Record<UploadEntry['status'], string> = { waiting: 'Waiting', uploading: 'Uploading', done: 'Uploaded', failed: 'Failed', cancelled: 'Cancelled' };

function UploadRow({ entry, onCancel, onDismiss }: { entry: UploadEntry; onCancel: () => void; onDismiss: () => void }) {
  const pct = Math.round(entry.progress * 100);
  const finished = FINISHED.includes(entry.status);
  return (
    <li className={`upload-row upload-${entry.status}`}>
      <div className="upload-line">
        <span className="upload-name" title={entry.file.name}>
          {entry.file.name}
        </span>
        <span className="upload-size muted">{formatBytes(entry.file.size)}</span>
        <span className="upload-status">{entry.status === 'uploading' ? `${pct}%` : STATUS_TEXT[entry.status]}</span>
        {finished ? (
          <Button variant="ghost" className="btn-small" aria-label={`Dismiss ${entry.file.name}`} onClick={onDismiss}>
            ×
          </Button>
        ) : (
          <Button variant="ghost" className="btn-small" aria-label={`Cancel ${entry.file.name}`} onClick={onCancel}>
            Cancel
          </Button>
        )}
      </div>
      <progress max={100} value={pct} aria-label={`Upload of ${entry.file.name}`} aria-valuetext={`${STATUS_TEXT[entry.status]}, ${pct}%`} />
      {entry.error ? (
        <p className="error" role="alert">
          {entry.file.name}: {entry.error}
        </p>
      ) : null}
    </li>
  );
}

function MediaCard({ item, onDeleted }: { item: MediaItem; onDeleted: () => Promise<unknown> }) {
  const name = displayName(item);
  const dims = item.width && item.height ? `${item.width}×${item.height}` : null;
  return (
    <li className="media-card">
      <a className="media-thumb" href={item.path} target="_blank" rel="noreferrer" aria-label={`Open ${name}`}>
        {item.type === 'image' ? (
          <img src={item.path} alt={item.alt ?? ''} loading="lazy" />
        ) : item.type === 'audio' ? (
          <span className="media-audio-mark" aria-hidden="true">
            ♪
          </span>
        ) : item.thumbnail ? (
          <img src={item.thumbnail} alt={item.alt ?? ''} loading="lazy" />
        ) : (
          <video src={item.path} preload="metadata" muted playsInline />
        )}
        {item.type !== 'image' ? (
          <span className="media-duration">
            <span aria-hidden="true">{item.type === 'audio' ? '♪ ' : '▶ '}</span>
            {item.duration !== null ? formatSeconds(item.duration) : TYPE_LABEL[item.type]}
          </span>
        ) : null}
      </a>
      {item.type === 'audio' ? <audio className="media-audio" controls preload="none" src={item.path} aria-label={`Listen to ${name}`} /> : null}
      <div className="media-info">
        <p className="media-name" title={name}>
          {name}
        </p>
        <p className="media-meta">
          <span className={`badge media-type-${item.type}`}>{TYPE_LABEL[item.type]}</span> <span title={item.mimeType}>{item.mimeType.split('/')[1]?.toUpperCase()}</span> · {formatBytes(item.size)}
          {dims ? ` · ${dims}` : ''}
          {item.type !== 'image' && item.duration !== null ? ` · ${formatSeconds(item.duration)}` : ''}
        </p>
      </div>
      <MediaUses item={item} name={name} />
      <div className="media-actions">
        <ConfirmButton label="Delete" ariaLabel={`Delete ${name}`} title={`Delete ${name}?`} confirmLabel="Delete file" onConfirm={onDeleted}>
          <p>The file is removed from the library and from storage. Published posts keep what the platforms already have; a draft or queued post that uses it must drop it first.</p>
        </ConfirmButton>
      </div>
    </li>
  );
}

/** What uses an item (GET /media/{id}/uses), read when the person opens it. */
function MediaUses({ item, name }: { item: MediaItem; name: string }) {
  const [open, setOpen] = useState(false);
  const timeZone = useTimeZone();
  const uses = useQuery({
    queryKey: ['media', 'uses', item.id],
    queryFn: () => unwrap(api.GET('/media/{id}/uses', { params: { path: { id: item.id } } })),
    enabled: open,
  });
  return (
    <details className="media-uses" onToggle={(e) => setOpen((e.currentTarget).open)}>
      <summary aria-label={`Posts using ${name}`}>Used by</summary>
      {uses.isPending ? (
        <Spinner label="Looking for posts" />
      ) : uses.error ? (
        <ErrorNotice error={uses.error} />
      ) : uses.data.posts.length === 0 ? (
        <p className="hint">No post uses this file.</p>
      ) : (
        <>
          <ul>
            {uses.data.posts.map((p, i) => (
              <li key={`${p.postId}-${i}`}>
                <StateBadge state={p.state} /> <Link to={`/posts/${p.postId}`}>{p.integration.name}</Link>
                {p.threadItem ? ' (a reply)' : ''}{' '}
                <span className="hint" title={utcTitle(p.publishDate)}>
                  {formatDateTime(p.publishDate, timeZone)}
                </span>
              </li>
            ))}
          </ul>
          {uses.data.blocksDelete ? <p className="hint">A draft or queued post uses it: it cannot be deleted until they drop it.</p> : null}
        </>
      )}
    </details>
  );
}

/** The media library (/library): the organisation's files, newest first, 100 a page; upload and delete. */
export default function MediaPage() {
  const queryClient = useQueryClient();
  const [page, setPage] = useState(0);
  const media = useQuery({
    queryKey: queryKeys.media(page),
    queryFn: () => unwrap(api.GET('/media', { params: { query: { page } } })),
    placeholderData: keepPreviousData,
  });
  const invalidate = () => queryClient.invalidateQueries({ queryKey: ['media'] });
  const queue = useUploadQueue({ onUploaded: () => void invalidate() });

  // a page emptied by deletions gives way to the one before it
  const data = media.data;
  useEffect(() => {
    if (data && data.media.length === 0 && page > 0) setPage((p) => p - 1);
  }, [data, page]);

  const pages = data ? Math.max(1, Math.ceil(data.total / data.limit)) : 1;
  const finished = queue.entries.filter((e) => FINISHED.includes(e.status)).length;
  const running = queue.entries.filter((e) => e.status === 'uploading' || e.status === 'waiting').length;

  return (
    <div className="media-page">
      <PageHeader title="Media library">
        <p className="hint">{data ? `${data.total} ${data.total === 1 ? 'file' : 'files'} · images and videos for your posts` : 'Images and videos for your posts'}</p>
      </PageHeader>

      <DropZone onFiles={queue.add} />

      {queue.entries.length > 0 ? (
        <section className="upload-queue" aria-label="Uploads">
          <div className="upload-queue-head">
            <h2>{running > 0 ? `Uploading ${running} ${running === 1 ? 'file' : 'files'}…` : 'Uploads finished'}</h2>
            {finished > 0 ? (
              <Button variant="ghost" className="btn-small" onClick={queue.clearFinished}>
                Clear finished
              </Button>
            ) : null}
          </div>
          <ul>
            {queue.entries.map((e) => (
              <UploadRow key={e.key} entry={e} onCancel={() => queue.cancel(e.key)} onDismiss={() => queue.dismiss(e.key)} />
            ))}
          </ul>
        </section>
      ) : null}

      {media.isPending ? (
        <Spinner label="Loading the media library" />
      ) : media.error ? (
        <ErrorNotice error={media.error} />
      ) : media.data.media.length === 0 ? (
        <EmptyState title="No media yet">
          <p>Upload images or videos to use them in posts.</p>
        </EmptyState>
      ) : (
        <>
          <ul className="media-grid" aria-label="Media files" aria-busy={media.isFetching}>
            {media.data.media.map((m) => (
              <MediaCard
                key={m.id}
                item={m}
                onDeleted={async () => {
                  await unwrap(api.DELETE('/media/{id}', { params: { path: { id: m.id } } }));
                  await invalidate();
                }}
              />
            ))}
          </ul>
          {pages > 1 ? (
            <nav className="media-pager" aria-label="Media pages">
              <Button variant="secondary" disabled={page === 0} onClick={() => setPage((p) => Math.max(0, p - 1))}>
                ← Newer
              </Button>
              <span>
                Page {page + 1} of {pages}
              </span>
              <Button variant="secondary" disabled={!media.data.hasMore} onClick={() => setPage((p) => p + 1)}>
                Older →
              </Button>
            </nav>
          ) : null}
        </>
      )}
    </div>
  );
}
