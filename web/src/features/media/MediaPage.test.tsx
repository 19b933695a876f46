import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { ApiFailure } from '../../api/client.js';
import type { MediaItem } from '../../api/queries.js';
import { apiError, fakeApi, renderWithApp } from '../settings/test-utils.js';
import MediaPage from './MediaPage.js';

const net = vi.hoisted(() => {
  const holder: { fetch: (input: RequestInfo | URL, init?: RequestInit) => Promise<Response> } = { fetch: () => Promise.reject(new Error('no fake API')) };
  vi.stubGlobal('fetch', (input: RequestInfo | URL, init?: RequestInit) => holder.fetch(input, init));
  return holder;
});

// The uploads are driven by the test: each call is kept with its progress callback and its outcome.
const uploads = vi.hoisted(() => [] as { file: File; progress: (f: number) => void; resolve: (m: unknown) => void; reject: (e: unknown) => void }[]);
vi.mock('../../api/upload.js', () => ({
  uploadFile: (file: File, progress: (f: number) => void) => new Promise((resolve, reject) => uploads.push({ file, progress, resolve, reject })),
}));

const media = (over: Partial<MediaItem>): MediaItem => ({
  id: 'm1',
  name: 'stored.jpg',
  originalName: 'beach.jpg',
  path: '/media/2026/11/stored.jpg',
  thumbnail: null,
  alt: null,
  type: 'image',
  mimeType: 'image/jpeg',
  size: 123_456,
  width: 1200,
  height: 800,
  duration: null,
  codecs: null,
  ...over,
});

describe('the media library', () => {
  it('lists files with their thumbnails, type, size, dimensions and duration', async () => {
    const api = fakeApi({
      'GET /media': () => ({
        media: [media({}), media({ id: 'm2', originalName: 'clip.mp4', name: 'c.mp4', path: '/media/c.mp4', type: 'video', mimeType: 'video/mp4', size: 2_500_000, width: 1920, height: 1080, duration: 75.4 })],
        total: 2,
        page: 0,
        limit: 100,
        hasMore: false,
      }),
    });
    net.fetch = api.fetch;
    renderWithApp(<MediaPage />);
    const grid = await screen.findByRole('list', { name: 'Media files' });
    const [image, video] = within(grid).getAllByRole('listitem');
    expect(image!.querySelector('img')!.getAttribute('src')).toBe('/media/2026/11/stored.jpg');
    expect(image!.textContent).toContain('beach.jpg');
    expect(image!.textContent).toMatch(/123 kB · 1200×800/);
    const player = video!.querySelector('video')!;
    expect(player.getAttribute('src')).toBe('/media/c.mp4');
    expect(player.getAttribute('preload')).toBe('metadata');
    expect(video!.textContent).toContain('1:15');
    expect(video!.textContent).toContain('2.5 MB');
    expect(screen.getByText(/2 files/)).toBeTruthy();
    expect(api.calls[0]!.query.get('page')).toBe('0');
  });

  it('shows an audio file (background music for videos) as audio, with a player, not as a video', async () => {
    const api = fakeApi({
      'GET /media': () => ({
        media: [media({ id: 'a1', originalName: 'song.mp3', name: 's.mp3', path: '/media/s.mp3', type: 'audio', mimeType: 'audio/mpeg', size: 480_000, width: null, height: null, duration: 30 })],
        total: 1,
        page: 0,
        limit: 100,
        hasMore: false,
      }),
    });
    net.fetch = api.fetch;
    renderWithApp(<MediaPage />);
    const grid = await screen.findByRole('list', { name: 'Media files' });
    const [song] = within(grid).getAllByRole('listitem');
    expect(song!.querySelector('video')).toBeNull();
    expect(song!.querySelector('audio')!.getAttribute('src')).toBe('/media/s.mp3');
    expect(song!.querySelector('.media-type-audio')!.textContent).toBe('Audio');
    expect(song!.textContent).toContain('480 kB · 0:30');
  });

  it('uploads several files, each with its progress and outcome; the list is read again after each', async () => {
    const user = userEvent.setup();
    uploads.length = 0;
    let listed: MediaItem[] = [];
    const api = fakeApi({ 'GET /media': () => ({ media: listed, total: listed.length, page: 0, limit: 100, hasMore: false }) });
    net.fetch = api.fetch;
    renderWithApp(<MediaPage />);
    expect(await screen.findByText('No media yet')).toBeTruthy();
    const files = ['a.png', 'b.png', 'c.png'].map((n) => new File(['data'], n, { type: 'image/png' }));
    await user.upload(screen.getByLabelText('Choose files to upload'), files);

    // two at a time: the third waits
    await waitFor(() => expect(uploads).toHaveLength(2));
    const bar = (name: string) => screen.getByRole<HTMLProgressElement>('progressbar', { name: `Upload of ${name}` });
    expect(within(bar('c.png').closest('li')!).getByText('Waiting')).toBeTruthy();
    act(() => uploads[0]!.progress(0.42));
    expect(bar('a.png').value).toBe(42);
    expect(within(bar('a.png').closest('li')!).getByText('42%')).toBeTruthy();

    listed = [media({ id: 'a', originalName: 'a.png' })];
    await act(async () => uploads[0]!.resolve(listed[0]));
    expect(within(bar('a.png').closest('li')!).getByText('Uploaded')).toBeTruthy();
    expect(bar('a.png').value).toBe(100);
    expect(await screen.findByRole('list', { name: 'Media files' })).toBeTruthy();

    // the third starts when a slot frees; its refusal is shown on its own row
    await waitFor(() => expect(uploads).toHaveLength(3));
    await act(async () =>
      uploads[2]!.reject(new ApiFailure(400, { statusCode: 400, code: 'VALIDATION_FAILED', message: 'file: unsupported file type', fields: [{ path: 'file', message: 'unsupported file type; allowed: image/jpeg' }], requestId: 'r' })),
    );
    expect(within(bar('c.png').closest('li')!).getByRole('alert').textContent).toBe('c.png: unsupported file type; allowed: image/jpeg');
    expect(screen.getByRole('heading', { name: 'Uploading 1 file…' })).toBeTruthy();

    await user.click(screen.getByRole('button', { name: 'Cancel b.png' }));
    expect(within(bar('b.png').closest('li')!).getByText('Cancelled')).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Clear finished' }));
    expect(screen.queryByRole('region', { name: 'Uploads' })).toBeNull();
  });

  it('delete asks first, and shows the API’s refusal while a draft or queued post uses the file', async () => {
    const user = userEvent.setup();
    const api = fakeApi({
      'GET /media': () => ({ media: [media({})], total: 1, page: 0, limit: 100, hasMore: false }),
      'DELETE /media/{id}': () => apiError(409, 'CONFLICT', 'Media is used by draft or queued posts: p-123'),
    });
    net.fetch = api.fetch;
    renderWithApp(<MediaPage />);
    await user.click(await screen.findByRole('button', { name: 'Delete beach.jpg' }));
    const dialog = await screen.findByRole('dialog');
    await user.click(within(dialog).getByRole('button', { name: 'Delete file' }));
    expect((await within(dialog).findByRole('alert')).textContent).toContain('Media is used by draft or queued posts: p-123');
    expect(api.calls.some((c) => c.method === 'DELETE' && c.path === '/media/m1')).toBe(true);
    // still listed (behind the dialog)
    expect(screen.getByRole('list', { name: 'Media files', hidden: true }).textContent).toContain('beach.jpg');
  });

  it('shows what uses a file when asked (GET /media/{id}/uses), linking to the posts', async () => {
    const user = userEvent.setup();
    const api = fakeApi({
      'GET /media': () => ({ media: [media({})], total: 1, page: 0, limit: 100, hasMore: false }),
      'GET /media/{id}/uses': () => ({
        posts: [{ postId: 'p-1', threadItem: false, state: 'QUEUE', publishDate: '2026-12-01T09:00:00.000Z', integration: { id: 'c-1', name: 'Acme News', identifier: 'telegram' } }],
        blocksDelete: true,
      }),
    });
    net.fetch = api.fetch;
    renderWithApp(<MediaPage />);
    expect(api.calls.some((c) => c.path.endsWith('/uses'))).toBe(false);
    await user.click(await screen.findByText('Used by'));
    const link = await screen.findByRole('link', { name: 'Acme News' });
    expect(link.getAttribute('href')).toBe('/posts/p-1');
    expect(screen.getByText(/cannot be deleted until they drop it/)).toBeTruthy();
    expect(api.calls.filter((c) => c.path === '/media/m1/uses')).toHaveLength(1);
  });
});
