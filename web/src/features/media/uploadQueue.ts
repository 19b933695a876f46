import { useCallback, useEffect, useReducer, useRef } from 'react';
import { ApiFailure } from '../../api/client.js';
import type { MediaItem } from '../../api/queries.js';
import { uploadFile } from '../../api/upload.js';

/**
 * The upload queue of the media library: each chosen or dropped file gets an entry with its own
 * progress and outcome; a few upload at a time, the rest wait their turn.
 */
export type UploadStatus = 'waiting' | 'uploading' | 'done' | 'failed' | 'cancelled';

export interface UploadEntry {
  key: string;
  file: File;
  status: UploadStatus;
  /** 0..1 */
  progress: number;
  error?: string;
  result?: MediaItem;
}

export type UploadAction =
  | { type: 'add'; entries: { key: string; file: File }[] }
  | { type: 'start'; key: string }
  | { type: 'progress'; key: string; fraction: number }
  | { type: 'done'; key: string; result: MediaItem }
  | { type: 'failed'; key: string; error: string }
  | { type: 'cancelled'; key: string }
  | { type: 'dismiss'; key: string }
  | { type: 'clearFinished' };

export const FINISHED: readonly UploadStatus[] = ['done', 'failed', 'cancelled'];

export function uploadReducer(state: UploadEntry[], action: UploadAction): UploadEntry[] {
  const update = (key: string, patch: (e: UploadEntry) => Partial<UploadEntry>) => state.map((e) => (e.key === key ? { ...e, ...patch(e) } : e));
  switch (action.type) {
    case 'add':
      return [...state, ...action.entries.map((e) => ({ key: e.key, file: e.file, status: 'waiting' as const, progress: 0 }))];
    case 'start':
      return update(action.key, (e) => (e.status === 'waiting' ? { status: 'uploading' } : {}));
    case 'progress':
      // progress only moves forward, and only while uploading
      return update(action.key, (e) => (e.status === 'uploading' ? { progress: Math.max(e.progress, Math.min(1, action.fraction)) } : {}));
    case 'done':
      return update(action.key, () => ({ status: 'done', progress: 1, result: action.result, error: undefined }));
    case 'failed':
      return update(action.key, (e) => (e.status === 'cancelled' ? {} : { status: 'failed', error: action.error }));
    case 'cancelled':
      return update(action.key, (e) => (FINISHED.includes(e.status) ? {} : { status: 'cancelled' }));
    case 'dismiss':
      return state.filter((e) => e.key !== action.key || !FINISHED.includes(e.status));
    case 'clearFinished':
      return state.filter((e) => !FINISHED.includes(e.status));
  }
}

/** The waiting entries that may start now, oldest first, keeping at most `concurrency` uploading. */
export function startable(state: UploadEntry[], concurrency: number): UploadEntry[] {
  const running = state.filter((e) => e.status === 'uploading').length;
  return state.filter((e) => e.status === 'waiting').slice(0, Math.max(0, concurrency - running));
}

/** What to say about a refused upload: the API's words about the file (its `file` field), else its message. */
export function uploadErrorMessage(err: unknown): string {
  if (err instanceof ApiFailure) return err.body.fields?.find((f) => f.path === 'file')?.message ?? err.body.message;
  return err instanceof Error ? err.message : 'The upload failed';
}

let counter = 0;

/** The queue, running uploads through `upload` (uploadFile by default), `concurrency` at a time. */
export function useUploadQueue({ concurrency = 2, onUploaded, upload = uploadFile }: { concurrency?: number; onUploaded?: (item: MediaItem) => void; upload?: typeof uploadFile } = {}) {
  const [entries, dispatch] = useReducer(uploadReducer, []);
  const controllers = useRef(new Map<string, AbortController>());
  const onUploadedRef = useRef(onUploaded);
  onUploadedRef.current = onUploaded;

  useEffect(() => {
    for (const entry of startable(entries, concurrency)) {
      if (controllers.current.has(entry.key)) continue;
      const controller = new AbortController();
      controllers.current.set(entry.key, controller);
      dispatch({ type: 'start', key: entry.key });
      upload(entry.file, (fraction) => dispatch({ type: 'progress', key: entry.key, fraction }), controller.signal).then(
        (result) => {
          dispatch({ type: 'done', key: entry.key, result });
          onUploadedRef.current?.(result);
        },
        (err: unknown) => {
          if (controller.signal.aborted) dispatch({ type: 'cancelled', key: entry.key });
          else dispatch({ type: 'failed', key: entry.key, error: uploadErrorMessage(err) });
        },
      );
    }
  }, [entries, concurrency, upload]);

  // leaving the page stops the uploads still running
  useEffect(() => {
    const running = controllers.current;
    return () => {
      for (const c of running.values()) c.abort();
    };
  }, []);

  const add = useCallback((files: Iterable<File>) => {
    const list = [...files];
    if (list.length) dispatch({ type: 'add', entries: list.map((file) => ({ key: `u${++counter}`, file })) });
  }, []);
  const cancel = useCallback((key: string) => {
    const c = controllers.current.get(key);
    if (c) c.abort();
    dispatch({ type: 'cancelled', key });
  }, []);
  const dismiss = useCallback((key: string) => dispatch({ type: 'dismiss', key }), []);
  const clearFinished = useCallback(() => dispatch({ type: 'clearFinished' }), []);

  return { entries, add, cancel, dismiss, clearFinished };
}
