import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api, unwrap } from '../../api/client.js';
import { queryKeys, type MediaItem } from '../../api/queries.js';
import { Button, EmptyState, ErrorNotice, Modal, Spinner } from '../../components/ui.js';

/** Posts carry pictures and videos; audio items (background music for generated videos) are left out. */
export function isPostable(m: MediaItem): m is MediaItem & { type: 'image' | 'video' } {
  return m.type !== 'audio';
}

/** A media item's picture for a grid or a strip: its thumbnail, the image itself, or a video mark. */
export function MediaThumb({ item, className }: { item: { path: string; thumbnail: string | null; type: 'image' | 'video' | 'audio'; name?: string; alt?: string | null }; className?: string }) {
  const [broken, setBroken] = useState(false);
  const src = item.thumbnail ?? (item.type === 'image' ? item.path : undefined);
  if (!src || broken) {
    return (
      <span className={`compose-thumb compose-thumb-none${className ? ` ${className}` : ''}`} aria-hidden="true">
        {item.type === 'video' ? '▶' : item.type === 'audio' ? '♪' : '🖼'}
      </span>
    );
  }
  return (
    <span className={`compose-thumb${className ? ` ${className}` : ''}`}>
      <img src={src} alt="" loading="lazy" onError={() => setBroken(true)} />
      {item.type === 'video' ? (
        <span className="compose-thumb-play" aria-hidden="true">
          ▶
        </span>
      ) : null}
    </span>
  );
}

/**
 * Choose media from the organisation's library (GET /media, 100 a page, newest first). At most
 * `room` items can be chosen (the strictest selected channel's limit; Infinity before rules load).
 */
export function MediaPicker({ open, onOpenChange, room, onPick }: { open: boolean; onOpenChange: (open: boolean) => void; room: number; onPick: (items: MediaItem[]) => void }) {
  const [page, setPage] = useState(0);
  const [chosen, setChosen] = useState<Map<string, MediaItem>>(new Map());
  const list = useQuery({
    queryKey: queryKeys.media(page),
    queryFn: () => unwrap(api.GET('/media', { params: { query: { page } } })),
    enabled: open,
  });
  const full = chosen.size >= room;

  function toggle(item: MediaItem) {
    setChosen((prev) => {
      const next = new Map(prev);
      if (next.has(item.id)) next.delete(item.id);
      else if (next.size < room) next.set(item.id, item);
      return next;
    });
  }

  function close(next: boolean) {
    if (!next) setChosen(new Map());
    onOpenChange(next);
  }

  return (
    <Modal open={open} onOpenChange={close} title="Add from the media library" wide>
      {list.isPending ? <Spinner label="Loading the library" /> : null}
      <ErrorNotice error={list.error} />
      {list.data && list.data.media.length === 0 && page === 0 ? (
        <EmptyState title="The library is empty">
          <p>Upload a file from the post instead; it is added to the library.</p>
        </EmptyState>
      ) : null}
      {list.data ? (
        <>
          <p className="hint" role="status">
            {chosen.size} chosen{Number.isFinite(room) ? ` (up to ${room} more on this item)` : ''} · {list.data.total} in the library
          </p>
          <ul className="compose-library" aria-label="Media library">
            {list.data.media.filter(isPostable).map((m) => {
              const on = chosen.has(m.id);
              return (
                <li key={m.id}>
                  <button type="button" className="compose-library-item" aria-pressed={on} disabled={!on && full} onClick={() => toggle(m)} title={m.originalName ?? m.name}>
                    <MediaThumb item={m} />
                    <span className="compose-library-name">{m.originalName ?? m.name}</span>
                    <span className="visually-hidden">{m.type}</span>
                  </button>
                </li>
              );
            })}
          </ul>
          <div className="compose-library-pages">
            <Button variant="ghost" disabled={page === 0} onClick={() => setPage((p) => p - 1)}>
              ← Newer
            </Button>
            <span className="hint">Page {page + 1}</span>
            <Button variant="ghost" disabled={!list.data.hasMore} onClick={() => setPage((p) => p + 1)}>
              Older →
            </Button>
          </div>
        </>
      ) : null}
      <div className="compose-dialog-actions">
        <Button variant="secondary" onClick={() => close(false)}>
          Cancel
        </Button>
        <Button
          disabled={chosen.size === 0}
          onClick={() => {
            onPick([...chosen.values()]);
            close(false);
          }}
        >
          Add {chosen.size > 0 ? chosen.size : ''} to the post
        </Button>
      </div>
    </Modal>
  );
}
