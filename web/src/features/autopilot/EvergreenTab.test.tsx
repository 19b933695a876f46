import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import type { components } from '../../api/schema.js';
import { apiError, apiFetch, channel, json, renderPage, type Call, type Routes } from '../../test/kit.js';
import { EvergreenTab } from './EvergreenTab.js';

const net = vi.hoisted(() => {
  const holder: { fetch: (input: RequestInfo | URL, init?: RequestInit) => Promise<Response> } = { fetch: () => Promise.reject(new Error('no fake API')) };
  vi.stubGlobal('fetch', (input: RequestInfo | URL, init?: RequestInit) => holder.fetch(input, init));
  return holder;
});

type Queue = components['schemas']['EvergreenQueue'];
type Item = components['schemas']['EvergreenItem'];

const CHANNELS = [channel({ id: 'ch-tg', name: 'Acme news', identifier: 'telegram' }), channel({ id: 'ch-bs', name: 'Acme sky', identifier: 'bluesky' })];

const queue = (over: Partial<Queue> = {}): Queue => ({
  id: 'q-1',
  name: 'Best of the blog',
  integrations: ['ch-tg', 'ch-bs'],
  order: 'sequence',
  minGapDays: 30,
  horizonDays: 7,
  enabled: true,
  channels: [],
  createdAt: '2026-11-01T10:00:00.000Z',
  updatedAt: '2026-11-01T10:00:00.000Z',
  ...over,
});
const item = (over: Partial<Item> = {}): Item => ({ id: 'i-1', position: 0, content: 'Read our guide to slow travel', variations: [], media: [], settings: {}, createdAt: '2026-11-01T10:00:00.000Z', ...over });

function serve(routes: Routes) {
  const calls: Call[] = [];
  net.fetch = apiFetch({ 'GET /integrations': () => CHANNELS, ...routes }, calls);
  return calls;
}

const at = (path = '/autopilot/evergreen') => ({ path: '/autopilot/evergreen/*', route: path });

describe('evergreen queues', () => {
  it('lists queues with their settings, item count and a paused channel; Resume calls the route', async () => {
    const user = userEvent.setup();
    let paused = true;
    const calls = serve({
      'GET /evergreen': () => [
        queue({
          channels: paused ? [{ integrationId: 'ch-bs', consecutiveFailures: 3, paused: true, pausedAt: '2026-11-28T09:00:00.000Z', pausedReason: 'the post failed: token revoked' }] : [],
        }),
        queue({ id: 'q-2', name: 'Quotes', integrations: [], order: 'shuffle', minGapDays: 0, enabled: false }),
      ],
      'GET /evergreen/q-1/items': () => [item(), item({ id: 'i-2', position: 1 })],
      'GET /evergreen/q-2/items': () => [],
      'POST /evergreen/:id/channels/:integrationId/resume': () => {
        paused = false;
        return queue();
      },
    });
    renderPage(<EvergreenTab />, at());
    const list = await screen.findByRole('list', { name: 'Evergreen queues' });
    const [first, second] = within(list).getAllByRole('listitem');
    expect(first!.textContent).toContain('Acme news (Telegram)');
    expect(first!.textContent).toContain('In turn');
    expect(first!.textContent).toContain('30 days');
    await waitFor(() => expect(within(first!).getByText('Items').nextSibling!.textContent).toBe('2'));
    expect(first!.textContent).toContain('is paused in this queue');
    expect(first!.textContent).toContain('token revoked');
    expect(second!.textContent).toContain('Every channel');
    expect(second!.textContent).toContain('Shuffled');
    expect(second!.textContent).toContain('Stopped');
    expect(within(second!).queryByRole('button', { name: /^Resume/ })).toBeNull();

    await user.click(within(first!).getByRole('button', { name: 'Resume Acme sky (Bluesky) in Best of the blog' }));
    await waitFor(() => expect(calls.some((c) => c.method === 'POST' && c.path === '/evergreen/q-1/channels/ch-bs/resume')).toBe(true));
    await waitFor(() => expect(screen.queryByText(/is paused in this queue/)).toBeNull());
  });

  it('creates a queue with the ticked channels, order, gap and horizon, and opens it', async () => {
    const user = userEvent.setup();
    const calls = serve({
      'GET /evergreen': () => [],
      'POST /evergreen': (_r, _u, body) => json(queue({ id: 'q-9', ...(body as Partial<Queue>) }), 201),
      'GET /evergreen/q-9': () => queue({ id: 'q-9' }),
      'GET /evergreen/q-9/items': () => [],
    });
    renderPage(<EvergreenTab />, at());
    await screen.findByText('No evergreen queues yet');
    await user.click(screen.getByRole('button', { name: 'New queue' }));
    const dialog = await screen.findByRole('dialog', { name: 'New evergreen queue' });
    await user.type(within(dialog).getByLabelText('Name'), 'Evergreen tips');
    await user.click(await within(dialog).findByRole('checkbox', { name: /Acme sky/ }));
    await user.selectOptions(within(dialog).getByLabelText('Order'), 'shuffle');
    await user.clear(within(dialog).getByLabelText('Repeat gap (days)'));
    await user.type(within(dialog).getByLabelText('Repeat gap (days)'), '14');
    await user.clear(within(dialog).getByLabelText('Fill ahead (days)'));
    await user.type(within(dialog).getByLabelText('Fill ahead (days)'), '10');
    await user.click(within(dialog).getByRole('button', { name: 'Create queue' }));
    await waitFor(() => expect(screen.getByTestId('location').textContent).toBe('/autopilot/evergreen/q-9'));
    expect(calls.find((c) => c.method === 'POST')!.body).toEqual({ name: 'Evergreen tips', integrations: ['ch-bs'], order: 'shuffle', minGapDays: 14, horizonDays: 10, enabled: true });
  });

  it('shows a 400 next to the field it names', async () => {
    const user = userEvent.setup();
    serve({
      'GET /evergreen': () => [],
      'POST /evergreen': () => apiError(400, 'VALIDATION_FAILED', 'Invalid body', [{ path: 'integrations.0', message: 'No such channel' }]),
    });
    renderPage(<EvergreenTab />, at());
    await user.click(await screen.findByRole('button', { name: 'New queue' }));
    const dialog = await screen.findByRole('dialog');
    await user.type(within(dialog).getByLabelText('Name'), 'X');
    await user.click(within(dialog).getByRole('button', { name: 'Create queue' }));
    const group = within(dialog).getByRole('group', { name: 'Channels' });
    expect((await within(group).findByRole('alert')).textContent).toBe('No such channel');
    expect(group.getAttribute('aria-invalid')).toBe('true');
  });

  it('a queue: adds an item with a variation, shows a refused variation by its field, deletes after confirming', async () => {
    const user = userEvent.setup();
    const items = [item()];
    const calls = serve({
      'GET /evergreen/q-1': () => queue(),
      'GET /evergreen/q-1/items': () => items,
      'POST /evergreen/q-1/items': (_r, _u, body) => {
        const b = body as { content: string; variations: string[] };
        if (b.variations.some((v) => v.length > 20)) return apiError(400, 'VALIDATION_FAILED', 'Too long', [{ path: 'variations.0', message: 'Too long for Bluesky (300)' }]);
        const made = item({ id: 'i-2', position: 1, content: b.content, variations: b.variations });
        items.push(made);
        return json(made, 201);
      },
      'DELETE /evergreen/q-1/items/:itemId': () => {
        items.splice(0, 1);
        return { id: 'i-1', deleted: true };
      },
    });
    renderPage(<EvergreenTab />, at('/autopilot/evergreen/q-1'));
    expect((await screen.findByRole('heading', { name: 'Best of the blog' })).tagName).toBe('H2');
    await user.click(screen.getByRole('button', { name: 'Add item' }));
    const dialog = await screen.findByRole('dialog', { name: 'Add an item' });
    await user.type(within(dialog).getByLabelText('Text'), 'Our packing list');
    await user.click(within(dialog).getByRole('button', { name: 'Add a variation' }));
    await user.type(within(dialog).getByLabelText('Variation 1'), 'A very long wording of the packing list');
    await user.click(within(dialog).getByRole('button', { name: 'Add item' }));
    expect(await within(dialog).findByText('Too long for Bluesky (300)')).toBeTruthy();
    expect(within(dialog).getByLabelText('Variation 1').getAttribute('aria-invalid')).toBe('true');

    await user.clear(within(dialog).getByLabelText('Variation 1'));
    await user.type(within(dialog).getByLabelText('Variation 1'), 'Packing, short');
    await user.click(within(dialog).getByRole('button', { name: 'Add item' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(calls.filter((c) => c.method === 'POST').at(-1)!.body).toEqual({ content: 'Our packing list', variations: ['Packing, short'], media: [], settings: {} });
    const list = await screen.findByRole('list', { name: 'Items' });
    await waitFor(() => expect(within(list).getAllByRole('listitem')).toHaveLength(2));
    expect(within(list).getAllByRole('listitem')[1]!.textContent).toContain('1 variation');

    await user.click(screen.getByRole('button', { name: 'Delete item 1' }));
    const confirm = await screen.findByRole('alertdialog');
    await user.click(within(confirm).getByRole('button', { name: 'Remove item' }));
    await waitFor(() => expect(calls.some((c) => c.method === 'DELETE' && c.path === '/evergreen/q-1/items/i-1')).toBe(true));
    await waitFor(() => expect(within(screen.getByRole('list', { name: 'Items' })).getAllByRole('listitem')).toHaveLength(1));
  });

  it('plan: the next N days as a table (an empty slot said so); fill now: the posts made, linked', async () => {
    const user = userEvent.setup();
    const calls = serve({
      'GET /evergreen/q-1': () => queue(),
      'GET /evergreen/q-1/items': () => [item()],
      'GET /evergreen/q-1/plan': (_r, url) => ({
        slots: [
          { integrationId: 'ch-tg', at: '2026-12-01T09:00:00.000Z', itemId: 'i-1', variation: 0, content: 'Read our guide to slow travel' },
          { integrationId: 'ch-bs', at: '2026-12-01T09:00:00.000Z', itemId: null, variation: null, content: null },
        ].slice(0, url.searchParams.get('days') === '3' ? 2 : 1),
      }),
      'POST /evergreen/q-1/fill': () => ({
        created: [{ integrationId: 'ch-tg', at: '2026-12-01T09:00:00.000Z', itemId: 'i-1', variation: 0, postId: 'p-77' }],
        empty: [{ integrationId: 'ch-bs', at: '2026-12-01T09:00:00.000Z' }],
      }),
    });
    renderPage(<EvergreenTab />, at('/autopilot/evergreen/q-1'));
    await screen.findByRole('heading', { name: 'Best of the blog' });
    await user.clear(screen.getByLabelText('Days ahead'));
    await user.type(screen.getByLabelText('Days ahead'), '3');
    await user.click(screen.getByRole('button', { name: 'Show plan' }));
    const plan = await screen.findByRole('table', { name: 'Planned slots for the next 3 days' });
    const rows = within(plan).getAllByRole('row').slice(1);
    expect(rows).toHaveLength(2);
    expect(rows[0]!.textContent).toContain('Acme news (Telegram)');
    expect(rows[0]!.textContent).toContain('Read our guide to slow travel');
    // Europe/Berlin: 10:00
    expect(rows[0]!.querySelector('time')!.textContent).toMatch(/10:00/);
    expect(rows[1]!.textContent).toContain('Stays empty');
    expect(calls.find((c) => c.path === '/evergreen/q-1/plan')!.search.get('days')).toBe('3');

    await user.click(screen.getByRole('button', { name: 'Fill now' }));
    expect(await screen.findByText(/Scheduled 1 post\./)).toBeTruthy();
    expect(screen.getByText(/1 free slot stays empty/)).toBeTruthy();
    const made = screen.getByRole('table', { name: 'Posts scheduled by this fill' });
    expect(within(made).getByRole('link', { name: 'Open' }).getAttribute('href')).toBe('/posts/p-77');
  });

  it('deletes a queue after confirming and goes back to the list', async () => {
    const user = userEvent.setup();
    const calls = serve({
      'GET /evergreen': () => [],
      'GET /evergreen/q-1': () => queue(),
      'GET /evergreen/q-1/items': () => [],
      'DELETE /evergreen/q-1': () => ({ id: 'q-1', deleted: true }),
    });
    renderPage(<EvergreenTab />, at('/autopilot/evergreen/q-1'));
    await user.click(await screen.findByRole('button', { name: 'Delete the queue Best of the blog' }));
    const confirm = await screen.findByRole('alertdialog');
    expect(calls.some((c) => c.method === 'DELETE')).toBe(false);
    await user.click(within(confirm).getByRole('button', { name: 'Delete queue' }));
    await waitFor(() => expect(screen.getByTestId('location').textContent).toBe('/autopilot/evergreen'));
    expect(calls.some((c) => c.method === 'DELETE' && c.path === '/evergreen/q-1')).toBe(true);
  });
});
