import { describe, expect, it } from 'vitest';
import { ApiFailure } from '../../api/client.js';
import type { MediaItem } from '../../api/queries.js';
import { startable, uploadErrorMessage, uploadReducer, type UploadEntry } from './uploadQueue.js';

const file = (name: string) => new File(['x'], name, { type: 'image/png' });
const item = { id: 'm1', name: 'a.png' } as MediaItem;

function queue(...names: string[]): UploadEntry[] {
  return uploadReducer([], { type: 'add', entries: names.map((n) => ({ key: n, file: file(n) })) });
}

describe('the upload queue', () => {
  it('files wait, then start a few at a time, oldest first', () => {
    let s = queue('a', 'b', 'c');
    expect(s.map((e) => e.status)).toEqual(['waiting', 'waiting', 'waiting']);
    expect(startable(s, 2).map((e) => e.key)).toEqual(['a', 'b']);
    s = uploadReducer(s, { type: 'start', key: 'a' });
    s = uploadReducer(s, { type: 'start', key: 'b' });
    expect(startable(s, 2)).toEqual([]);
    s = uploadReducer(s, { type: 'done', key: 'a', result: item });
    expect(startable(s, 2).map((e) => e.key)).toEqual(['c']);
  });

  it('progress moves forward only, while uploading; done is 100 %', () => {
    let s = queue('a');
    s = uploadReducer(s, { type: 'progress', key: 'a', fraction: 0.5 });
    expect(s[0]!.progress).toBe(0);
    s = uploadReducer(s, { type: 'start', key: 'a' });
    s = uploadReducer(s, { type: 'progress', key: 'a', fraction: 0.6 });
    s = uploadReducer(s, { type: 'progress', key: 'a', fraction: 0.4 });
    expect(s[0]!.progress).toBe(0.6);
    s = uploadReducer(s, { type: 'done', key: 'a', result: item });
    expect(s[0]).toMatchObject({ status: 'done', progress: 1, result: item });
  });

  it('a failure keeps its reason; a cancelled upload stays cancelled when its request then fails', () => {
    let s = queue('a', 'b');
    s = uploadReducer(s, { type: 'start', key: 'a' });
    s = uploadReducer(s, { type: 'failed', key: 'a', error: 'unsupported file type' });
    expect(s[0]).toMatchObject({ status: 'failed', error: 'unsupported file type' });
    s = uploadReducer(s, { type: 'start', key: 'b' });
    s = uploadReducer(s, { type: 'cancelled', key: 'b' });
    s = uploadReducer(s, { type: 'failed', key: 'b', error: 'aborted' });
    expect(s[1]).toMatchObject({ status: 'cancelled' });
    expect(s[1]!.error).toBeUndefined();
  });

  it('finished entries are dismissed one by one or all at once; running ones stay', () => {
    let s = queue('a', 'b', 'c');
    s = uploadReducer(s, { type: 'start', key: 'a' });
    s = uploadReducer(s, { type: 'done', key: 'a', result: item });
    s = uploadReducer(s, { type: 'start', key: 'b' });
    s = uploadReducer(s, { type: 'dismiss', key: 'b' });
    expect(s.map((e) => e.key)).toEqual(['a', 'b', 'c']);
    s = uploadReducer(s, { type: 'dismiss', key: 'a' });
    expect(s.map((e) => e.key)).toEqual(['b', 'c']);
    s = uploadReducer(s, { type: 'failed', key: 'b', error: 'x' });
    s = uploadReducer(s, { type: 'clearFinished' });
    expect(s.map((e) => e.key)).toEqual(['c']);
  });

  it('says what the API said about the file', () => {
    const refused = new ApiFailure(400, { statusCode: 400, code: 'VALIDATION_FAILED', message: 'file: unsupported file type', fields: [{ path: 'file', message: 'unsupported file type' }], requestId: 'r' });
    expect(uploadErrorMessage(refused)).toBe('unsupported file type');
    const tooBig = new ApiFailure(413, { statusCode: 413, code: 'PAYLOAD_TOO_LARGE', message: 'file: images may be at most 10 bytes', requestId: 'r' });
    expect(uploadErrorMessage(tooBig)).toBe('file: images may be at most 10 bytes');
    expect(uploadErrorMessage(new Error('The upload was interrupted (network error)'))).toBe('The upload was interrupted (network error)');
  });
});
