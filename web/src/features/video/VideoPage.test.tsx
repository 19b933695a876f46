import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import type { MediaItem, VideoCredits, VideoJob, VideoProvider } from '../../api/queries.js';
import { apiError, fakeApi, renderWithApp, type Handler } from '../settings/test-utils.js';
import VideoPage from './VideoPage.js';

const net = vi.hoisted(() => {
  const holder: { fetch: (input: RequestInfo | URL, init?: RequestInit) => Promise<Response> } = { fetch: () => Promise.reject(new Error('no fake API')) };
  vi.stubGlobal('fetch', (input: RequestInfo | URL, init?: RequestInit) => holder.fetch(input, init));
  return holder;
});

const SLIDES: VideoProvider = {
  identifier: 'slides',
  name: 'Slides',
  description: 'Slides with text, pictures and music, made here.',
  runsOn: 'local',
  outputs: [
    { output: 'vertical', width: 1080, height: 1920 },
    { output: 'horizontal', width: 1920, height: 1080 },
  ],
  creditCost: 1,
  customParams: {
    type: 'object',
    properties: {
      template: { type: 'string', enum: ['title', 'caption', 'split'], default: 'title' },
      font: { type: 'string', enum: ['inter', 'inter-bold'], default: 'inter-bold' },
      slides: { type: 'array', maxItems: 30, items: { type: 'object', properties: { duration: { type: 'number', minimum: 1, maximum: 30, default: 4 }, transition: { type: 'string', default: 'fade' } } } },
    },
  },
  functions: [],
};

const credits = (over: Partial<VideoCredits> = {}): VideoCredits => ({
  period: '2026-11',
  plan: 'team',
  allowance: 10,
  granted: 0,
  used: 3,
  reserved: 0,
  remaining: 7,
  resetsAt: '2026-12-01T00:00:00.000Z',
  ...over,
});

const picture: MediaItem = {
  id: '0b0c6f1e-6f0e-4a53-9a53-0f3d9b1f2a11',
  name: 'p.jpg',
  originalName: 'beach.jpg',
  path: '/media/p.jpg',
  thumbnail: null,
  alt: null,
  type: 'image',
  mimeType: 'image/jpeg',
  size: 1000,
  width: 800,
  height: 600,
  duration: null,
  codecs: null,
};
const song: MediaItem = { ...picture, id: '6c1f3a9e-2d4b-4c1a-8f0e-3b2a1c0d9e87', name: 's.mp3', originalName: 'song.mp3', path: '/media/s.mp3', type: 'audio', mimeType: 'audio/mpeg', width: null, height: null, duration: 12 };

const job = (over: Partial<VideoJob>): VideoJob => ({
  id: 'job-1',
  type: 'slides',
  output: 'vertical',
  status: 'queued',
  progress: 0,
  stage: null,
  attempts: 0,
  credits: 1,
  creditState: 'reserved',
  error: null,
  media: null,
  createdAt: '2026-11-20T10:00:00.000Z',
  startedAt: null,
  finishedAt: null,
  ...over,
});

/** The API of a deployment with the slides provider, overridable per route; keeps the Prefer header of each generation. */
function videoApi(routes: Record<string, Handler> = {}, jobs: VideoJob[] = []) {
  const api = fakeApi({
    'GET /video/credits': () => credits(),
    'GET /video/providers': () => ({ providers: [SLIDES] }),
    'GET /video/jobs': () => ({ jobs, total: jobs.length, page: 0, limit: 100, hasMore: false }),
    'GET /media': () => ({ media: [picture, song], total: 2, page: 0, limit: 100, hasMore: false }),
    'POST /video/function': ({ body }) => {
      const { functionName } = body as { functionName: string };
      if (functionName === 'listTemplates') return new Response(JSON.stringify({ templates: [{ id: 'title', name: 'Title', description: 'Big centred text' }, { id: 'split', name: 'Split', description: 'Picture on top' }] }), { status: 200 });
      if (functionName === 'listFonts') return new Response(JSON.stringify({ fonts: [{ id: 'inter', family: 'Inter', weight: 400 }, { id: 'inter-bold', family: 'Inter', weight: 700 }] }), { status: 200 });
      return new Response(JSON.stringify({ mimeType: 'image/png', width: 1080, height: 1920, data: 'iVBORw0KGgo=' }), { status: 200 });
    },
    ...routes,
  });
  const prefer: (string | null)[] = [];
  net.fetch = (input, init) => {
    const req = input instanceof Request ? input : new Request(String(input), init);
    if (req.method === 'POST' && new URL(req.url, 'http://localhost').pathname.endsWith('/generate-video')) prefer.push(req.headers.get('prefer'));
    return api.fetch(input, init);
  };
  return { ...api, prefer };
}

const slide = (n: number) => screen.getByRole('group', { name: `Slide ${n}` });

describe('the Video page', () => {
  it("shows this month's credits: left of the allowance, when they renew; unlimited when the plan has no limit", async () => {
    videoApi();
    const { unmount } = renderWithApp(<VideoPage />);
    const panel = await screen.findByRole('region', { name: 'Video credits' });
    await waitFor(() => expect(panel.textContent).toContain('7 of 10 video credits left'));
    expect(panel.textContent).toContain('3 used this month');
    expect(panel.textContent).toMatch(/renews on 1 December 2026|renews on December 1, 2026/);
    unmount();

    videoApi({ 'GET /video/credits': () => credits({ allowance: null, remaining: null }) });
    renderWithApp(<VideoPage />);
    const unlimited = await screen.findByRole('region', { name: 'Video credits' });
    await waitFor(() => expect(unlimited.textContent).toContain('Unlimited video credits'));
    expect(unlimited.textContent).not.toContain('renews');
  });

  it('says video generation is off when the deployment lists no provider', async () => {
    videoApi({ 'GET /video/providers': () => ({ providers: [] }) });
    renderWithApp(<VideoPage />);
    expect(await screen.findByText('Video generation is off in this deployment')).toBeTruthy();
    expect(screen.queryByRole('form', { name: 'Slides video' })).toBeNull();
  });

  it('generates from the form: slides added, moved, with a picture and music, sent with Prefer: respond-async; the job shows in the list', async () => {
    const user = userEvent.setup();
    const queued = job({ id: 'job-new' });
    const listed: VideoJob[] = [];
    const api = videoApi(
      {
        'POST /generate-video': () => {
          listed.push(queued);
          return new Response(JSON.stringify(queued), { status: 202, headers: { 'content-type': 'application/json' } });
        },
      },
      listed,
    );
    renderWithApp(<VideoPage />);
    await screen.findByRole('form', { name: 'Slides video' });
    await waitFor(() => expect(screen.getByLabelText<HTMLSelectElement>('Template').disabled).toBe(false));

    await user.click(screen.getByLabelText(/Horizontal/));
    await user.selectOptions(screen.getByLabelText('Template'), 'split');
    await user.selectOptions(screen.getByLabelText('Font'), 'inter');
    await user.type(within(slide(1)).getByLabelText('Text'), 'Second');
    await user.click(screen.getByRole('button', { name: '+ Add slide' }));
    await user.type(within(slide(2)).getByLabelText('Text'), 'Hello');
    await user.type(within(slide(2)).getByLabelText('Caption'), 'from Acme');
    const duration = within(slide(2)).getByLabelText('Duration (s)');
    await user.clear(duration);
    await user.type(duration, '2.5');
    await user.selectOptions(within(slide(2)).getByLabelText('Transition'), 'crossfade');
    await user.click(screen.getByRole('button', { name: 'Move slide 2 up' }));
    expect(within(slide(1)).getByLabelText<HTMLTextAreaElement>('Text').value).toBe('Hello');

    await user.click(screen.getByRole('button', { name: 'Choose a picture for slide 1' }));
    const pictures = await screen.findByRole('list', { name: 'Pictures in the library' });
    expect(within(pictures).queryByText('song.mp3')).toBeNull();
    await user.click(within(pictures).getByRole('button', { name: /beach\.jpg/ }));
    await user.click(screen.getByRole('button', { name: 'Choose music…' }));
    const audio = await screen.findByRole('list', { name: 'Audio files in the library' });
    expect(within(audio).queryByText('beach.jpg')).toBeNull();
    await user.click(within(audio).getByRole('button', { name: /song\.mp3/ }));

    await user.click(screen.getByRole('button', { name: 'Generate video (1 credit)' }));
    await waitFor(() => expect(api.calls.some((c) => c.method === 'POST' && c.path === '/generate-video')).toBe(true));
    const post = api.calls.find((c) => c.method === 'POST' && c.path === '/generate-video')!;
    expect(post.body).toEqual({
      type: 'slides',
      output: 'horizontal',
      customParams: {
        template: 'split',
        font: 'inter',
        slides: [
          { text: 'Hello', caption: 'from Acme', image: { id: picture.id, path: '/media/p.jpg' }, duration: 2.5, transition: 'crossfade' },
          { text: 'Second', duration: 4, transition: 'fade' },
        ],
        audio: { id: song.id, path: '/media/s.mp3' },
      },
    });
    expect(api.prefer).toEqual(['respond-async']);
    const list = await screen.findByRole('list', { name: 'Video generations' });
    expect(within(list).getByText('Queued')).toBeTruthy();
    expect(screen.getByText(/The video is being made/)).toBeTruthy();
  });

  it("shows a 400's fields next to the slide they name, and a 403 in the server's words", async () => {
    const user = userEvent.setup();
    let answer = apiError(400, 'VALIDATION_FAILED', 'Request validation failed', [
      { path: 'customParams.slides.1.duration', message: 'Too big: expected number to be <=30' },
      { path: 'customParams.slides.0.text', message: 'A slide needs text or an image' },
    ]);
    videoApi({ 'POST /generate-video': () => answer });
    renderWithApp(<VideoPage />);
    await screen.findByRole('form', { name: 'Slides video' });
    await user.click(screen.getByRole('button', { name: '+ Add slide' }));
    await user.type(within(slide(2)).getByLabelText('Text'), 'Long one');
    await user.clear(within(slide(2)).getByLabelText('Duration (s)'));
    await user.type(within(slide(2)).getByLabelText('Duration (s)'), '45');
    await user.click(screen.getByRole('button', { name: 'Generate video (1 credit)' }));

    const durationInput = within(slide(2)).getByLabelText('Duration (s)');
    await waitFor(() => expect(durationInput.getAttribute('aria-invalid')).toBe('true'));
    expect(within(slide(2)).getByRole('alert').textContent).toBe('Too big: expected number to be <=30');
    expect(within(slide(1)).getByRole('alert').textContent).toBe('A slide needs text or an image');
    expect(within(slide(1)).getByLabelText('Duration (s)').getAttribute('aria-invalid')).toBeNull();
    // every field shown where it belongs: no general notice
    expect(screen.queryByText('Request validation failed')).toBeNull();

    answer = apiError(403, 'PLAN_LIMIT_REACHED', 'No video credits left this month: the plan "free" gives 0 video credits per month');
    await user.click(screen.getByRole('button', { name: 'Generate video (1 credit)' }));
    expect(await screen.findByText('No video credits left this month: the plan "free" gives 0 video credits per month')).toBeTruthy();
    expect(within(slide(2)).queryByRole('alert')).toBeNull();
  });

  it('previews the first slide: the preview function gets the output and the form, the PNG is shown', async () => {
    const user = userEvent.setup();
    const api = videoApi();
    renderWithApp(<VideoPage />);
    await screen.findByRole('form', { name: 'Slides video' });
    await user.type(within(slide(1)).getByLabelText('Text'), 'Hi');
    await user.click(screen.getByRole('button', { name: 'Preview first slide' }));
    const img = await screen.findByRole<HTMLImageElement>('img', { name: 'Preview of the first slide' });
    expect(img.getAttribute('src')).toBe('data:image/png;base64,iVBORw0KGgo=');
    const call = api.calls.find((c) => c.method === 'POST' && (c.body as { functionName: string }).functionName === 'preview')!;
    expect(call.body).toEqual({ identifier: 'slides', functionName: 'preview', params: { output: 'vertical', customParams: { template: 'title', font: 'inter-bold', slides: [{ text: 'Hi', duration: 4, transition: 'fade' }] } } });
  });

  it('lists the generations: progress while running, the error when failed, the video with its duration and size when done', async () => {
    const done = job({
      id: 'job-3',
      status: 'succeeded',
      progress: 1,
      creditState: 'spent',
      media: { ...picture, id: 'v1', name: 'v.mp4', originalName: 'slides-video.mp4', path: '/media/v.mp4', type: 'video', mimeType: 'video/mp4', size: 2_400_000, width: 1080, height: 1920, duration: 8 },
    });
    const failed = job({ id: 'job-2', status: 'failed', error: 'The picture of slide 2 was deleted', creditState: 'refunded' });
    const running = job({ id: 'job-1', status: 'running', progress: 0.42, stage: 'encoding' });
    videoApi({}, [running, failed, done]);
    renderWithApp(<VideoPage pollMs={60_000} />);
    const list = await screen.findByRole('list', { name: 'Video generations' });
    const [r, f, d] = within(list).getAllByRole('listitem');
    const bar = within(r!).getByRole<HTMLProgressElement>('progressbar');
    expect(bar.value).toBe(42);
    expect(r!.textContent).toContain('42% · encoding');
    expect(f!.textContent).toContain('The picture of slide 2 was deleted');
    expect(f!.textContent).toContain('(refunded)');
    expect(within(f!).queryByRole('progressbar')).toBeNull();
    const video = d!.querySelector('video')!;
    expect(video.getAttribute('src')).toBe('/media/v.mp4');
    expect(video.hasAttribute('controls')).toBe(true);
    expect(d!.textContent).toContain('0:08 · 2.4 MB · 1080×1920');
  });
});
