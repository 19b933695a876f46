import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { api, unwrap } from '../../api/client.js';
import { queryKeys, type MediaItem } from '../../api/queries.js';
import { Button, ErrorNotice, Modal, Spinner } from '../../components/ui.js';
import { formatSeconds } from '../media/format.js';

const WHAT = { image: 'picture', audio: 'audio file' } as const;

/**
 * Pick one item of one type from the media library (a slide's picture, the background music).
 * GET /media has no type filter, so each page (100 items, newest first) is filtered here.
 */
export function MediaChooser({ open, onOpenChange, type, onPick }: { open: boolean; onOpenChange: (open: boolean) => void; type: 'image' | 'audio'; onPick: (item: MediaItem) => void }) {
  const [page, setPage] = useState(0);
  const list = useQuery({
    queryKey: queryKeys.media(page),
    queryFn: () => unwrap(api.GET('/media', { params: { query: { page } } })),
    enabled: open,
  });
  const items = list.data?.media.filter((m) => m.type === type) ?? [];

  return (
    <Modal open={open} onOpenChange={onOpenChange} title={`Choose a ${WHAT[type]}`} wide>
      {list.isPending ? <Spinner label="Loading the library" /> : null}
      <ErrorNotice error={list.error} />
      {list.data && items.length === 0 ? (
        <p className="hint">
          No {WHAT[type]} {page > 0 ? 'on this page' : 'in the library'}. Upload one in the <Link to="/library">media library</Link>.
        </p>
      ) : null}
      {items.length > 0 ? (
        <ul className="video-chooser" aria-label={`${type === 'image' ? 'Pictures' : 'Audio files'} in the library`}>
          {items.map((m) => {
            const name = m.originalName ?? m.name;
            return (
              <li key={m.id}>
                <button
                  type="button"
                  className="video-chooser-item"
                  title={name}
                  onClick={() => {
                    onPick(m);
                    onOpenChange(false);
                  }}
                >
                  {type === 'image' ? (
                    <img src={m.thumbnail ?? m.path} alt="" loading="lazy" />
                  ) : (
                    <span className="video-chooser-audio" aria-hidden="true">
                      ♪
                    </span>
                  )}
                  <span className="video-chooser-name">{name}</span>
                  {m.duration !== null ? <span className="hint">{formatSeconds(m.duration)}</span> : null}
                </button>
              </li>
            );
          })}
        </ul>
      ) : null}
      {list.data && (page > 0 || list.data.hasMore) ? (
        <div className="video-chooser-pages">
          <Button variant="ghost" disabled={page === 0} onClick={() => setPage((p) => p - 1)}>
            ← Newer
          </Button>
          <span className="hint">Page {page + 1}</span>
          <Button variant="ghost" disabled={!list.data.hasMore} onClick={() => setPage((p) => p + 1)}>
            Older →
          </Button>
        </div>
      ) : null}
    </Modal>
  );
}
