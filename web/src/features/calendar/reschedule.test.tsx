import { QueryClient } from '@tanstack/react-query';
import { describe, expect, it, vi } from 'vitest';
import { ApiFailure } from '../../api/client.js';
import { queryKeys } from '../../api/queries.js';
import type { CalendarPost } from './calendarModel.js';
import { moveBack, moveGroup, reschedule } from './reschedule.js';

// openapi-fetch keeps the fetch it found at import: the API's stand-in is installed first.
const server = vi.hoisted(() => {
  const holder: { answer: (req: Request) => Promise<Response>; seen: { method: string; url: string; body: unknown }[] } = { answer: () => Promise.reject(new Error('no answer set')), seen: [] };
  vi.stubGlobal('fetch', async (input: RequestInfo | URL, init?: RequestInit) => {
    const req = input instanceof Request ? input : new Request(input, init);
    holder.seen.push({ method: req.method, url: new URL(req.url).pathname, body: req.method === 'GET' ? undefined : await req.clone().json() });
    return holder.answer(req);
  });
  return holder;
});

const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

function seeded() {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false, staleTime: Infinity } } });
  const post = { id: 'p1', group: 'g1', publishDate: '2025-03-05T09:00:00.000Z', state: 'QUEUE' } as CalendarPost;
  const other = { id: 'p2', group: 'g2', publishDate: '2025-03-06T09:00:00.000Z', state: 'DRAFT' } as CalendarPost;
  const sibling = { id: 'p3', group: 'g1', publishDate: '2025-03-05T09:00:00.000Z', state: 'DRAFT' } as CalendarPost;
  client.setQueryData(queryKeys.posts('2025-03-02T23:00:00.000Z', '2025-03-09T23:00:00.000Z'), [post, other, sibling]);
  return client;
}
const cached = (client: QueryClient) => client.getQueryData<CalendarPost[]>(queryKeys.posts('2025-03-02T23:00:00.000Z', '2025-03-09T23:00:00.000Z'))!;

describe('moving a post on the calendar', () => {
  it('asks the API with the new instant and shows the post there at once', async () => {
    server.seen = [];
    let release!: () => void;
    const answered = new Promise<void>((r) => (release = r));
    server.answer = async () => {
      await answered;
      return json({ id: 'p1', state: 'QUEUE', publishDate: '2025-03-07T12:00:00.000Z' });
    };
    const client = seeded();
    const moving = reschedule(client, 'p1', '2025-03-07T12:00:00.000Z');
    // optimistic: before the API has answered
    await vi.waitFor(() => expect(cached(client)[0]!.publishDate).toBe('2025-03-07T12:00:00.000Z'));
    release();
    expect(await moving).toEqual({ ok: true, publishDate: '2025-03-07T12:00:00.000Z' });
    expect(server.seen[0]).toEqual({ method: 'PUT', url: '/public/v1/posts/p1/date', body: { date: '2025-03-07T12:00:00.000Z' } });
    expect(cached(client)[1]!.publishDate).toBe('2025-03-06T09:00:00.000Z');
    expect(client.getQueryState(queryKeys.posts('2025-03-02T23:00:00.000Z', '2025-03-09T23:00:00.000Z'))!.isInvalidated).toBe(true);
  });

  it('a refusal puts the post back and carries the API’s message', async () => {
    server.answer = () => Promise.resolve(json({ statusCode: 409, code: 'CONFLICT', message: 'This post is published: it stays where it went out', requestId: 'r' }, 409));
    const client = seeded();
    const result = await reschedule(client, 'p1', '2025-03-07T12:00:00.000Z');
    expect(result.ok).toBe(false);
    const error = (result as { error: unknown }).error;
    expect(error).toBeInstanceOf(ApiFailure);
    expect((error as ApiFailure).body.message).toBe('This post is published: it stays where it went out');
    expect(cached(client)[0]!.publishDate).toBe('2025-03-05T09:00:00.000Z');
  });
});

describe('moving a group (a post made for several channels) and undoing it', () => {
  it('moves every post of the group at once through the group route; Undo moves the group back', async () => {
    server.seen = [];
    server.answer = async (req) => {
      const { date } = (await req.json()) as { date: string };
      return json({ group: 'g1', publishDate: date, posts: [{ id: 'p1', integration: { id: 'c1' }, state: 'QUEUE', publishDate: date }, { id: 'p3', integration: { id: 'c2' }, state: 'DRAFT', publishDate: date }] });
    };
    const client = seeded();
    expect(await moveGroup(client, 'g1', '2025-03-07T12:00:00.000Z')).toEqual({ ok: true, publishDate: '2025-03-07T12:00:00.000Z', posts: ['p1', 'p3'] });
    expect(server.seen[0]).toEqual({ method: 'PUT', url: '/public/v1/posts/group/g1/date', body: { date: '2025-03-07T12:00:00.000Z' } });
    expect(cached(client).map((p) => p.publishDate)).toEqual(['2025-03-07T12:00:00.000Z', '2025-03-06T09:00:00.000Z', '2025-03-07T12:00:00.000Z']);

    const back = { group: 'g1', posts: [{ id: 'p1', publishDate: '2025-03-05T09:00:00.000Z' }, { id: 'p3', publishDate: '2025-03-05T09:00:00.000Z' }] };
    expect(await moveBack(client, back)).toEqual({ ok: true });
    expect(server.seen[1]).toEqual({ method: 'PUT', url: '/public/v1/posts/group/g1/date', body: { date: '2025-03-05T09:00:00.000Z' } });
  });

  it('a group whose posts were at different times gets each post back to its own', async () => {
    server.seen = [];
    server.answer = async (req) => json({ id: 'x', state: 'QUEUE', publishDate: ((await req.json()) as { date: string }).date });
    const client = seeded();
    const back = { group: 'g1', posts: [{ id: 'p1', publishDate: '2025-03-05T09:00:00.000Z' }, { id: 'p3', publishDate: '2025-03-05T10:00:00.000Z' }] };
    expect(await moveBack(client, back)).toEqual({ ok: true });
    expect(server.seen.map((r) => [r.url, r.body])).toEqual([
      ['/public/v1/posts/p1/date', { date: '2025-03-05T09:00:00.000Z' }],
      ['/public/v1/posts/p3/date', { date: '2025-03-05T10:00:00.000Z' }],
    ]);
  });

  it('a refusal puts every post of the group back', async () => {
    server.answer = () => Promise.resolve(json({ statusCode: 409, code: 'CONFLICT', message: 'Already published on Acme Sky', requestId: 'r' }, 409));
    const client = seeded();
    const result = await moveGroup(client, 'g1', '2025-03-07T12:00:00.000Z');
    expect(result.ok).toBe(false);
    expect(cached(client).map((p) => p.publishDate)).toEqual(['2025-03-05T09:00:00.000Z', '2025-03-06T09:00:00.000Z', '2025-03-05T09:00:00.000Z']);
  });
});
