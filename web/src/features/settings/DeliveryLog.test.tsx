import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { DeliveryLog } from './DeliveryLog.js';
import { fakeApi, makeMe, renderWithApp, type ApiCall } from './test-utils.js';
import type { DeliveryEntry } from './types.js';

const net = vi.hoisted(() => {
  const holder: { fetch: (input: RequestInfo | URL, init?: RequestInit) => Promise<Response> } = { fetch: () => Promise.reject(new Error('no fake API')) };
  vi.stubGlobal('fetch', (input: RequestInfo | URL, init?: RequestInit) => holder.fetch(input, init));
  return holder;
});

const entry = (over: Partial<DeliveryEntry>): DeliveryEntry => ({
  deliveryId: 'd-1',
  eventId: 'e1e1e1e1-0000-4000-8000-000000000001',
  eventType: 'post.published',
  attempt: 1,
  statusCode: 200,
  durationMs: 42,
  responseSnippet: 'ok',
  error: null,
  at: '2026-11-26T10:00:00.000Z',
  nextAttemptAt: null,
  state: 'delivered',
  ...over,
});

function serve(pages: DeliveryEntry[][], total: number) {
  const api = fakeApi({
    'GET /webhooks/{id}/deliveries': ({ query }: ApiCall) => {
      const page = Number(query.get('page') ?? 0);
      return { deliveries: pages[page] ?? [], total, page, limit: 50, hasMore: (page + 1) * 50 < total };
    },
    'POST /webhooks/{id}/deliveries/{deliveryId}/resend': ({ params }) => new Response(JSON.stringify({ deliveryId: params.deliveryId, state: 'pending' }), { status: 202, headers: { 'content-type': 'application/json' } }),
  });
  net.fetch = api.fetch;
  return api;
}

describe('the delivery log', () => {
  it('one row per attempt: status or why no answer came, duration, response, next retry in the display zone; resend once per delivery', async () => {
    const user = userEvent.setup();
    const api = serve(
      [
        [
          entry({ deliveryId: 'd-2', eventType: 'webhook.test', attempt: 0, statusCode: null, durationMs: null, responseSnippet: null, state: 'pending', at: '2026-11-26T12:00:00.000Z' }),
          entry({ deliveryId: 'd-1', attempt: 2, statusCode: 500, durationMs: 1500, responseSnippet: 'x'.repeat(80), error: 'the receiver answered 500', nextAttemptAt: '2026-11-26T11:30:00.000Z', state: 'failed', at: '2026-11-26T11:00:00.000Z' }),
          entry({ deliveryId: 'd-1', attempt: 1, statusCode: null, durationMs: 10_000, responseSnippet: null, error: 'no answer within 10 s', nextAttemptAt: '2026-11-26T10:05:00.000Z', state: 'failed' }),
        ],
      ],
      3,
    );
    renderWithApp(<DeliveryLog webhookId="w-1" />, { me: makeMe('owner', 'Asia/Tokyo') });
    const rows = await screen.findAllByRole('row');
    const [, pending, retried, first] = rows;

    expect(pending!.textContent).toContain('webhook.test');
    expect(pending!.textContent).toContain('Not sent yet');
    expect(pending!.textContent).toContain('Pending');
    // a delivery waiting to be sent cannot be resent
    expect(within(pending!).getByRole('button', { name: /^Resend webhook.test/ })).toHaveProperty('disabled', true);

    expect(retried!.textContent).toContain('500');
    expect(retried!.textContent).toContain('1.50 s');
    expect(retried!.textContent).toContain('the receiver answered 500');
    expect(retried!.textContent).toContain('Gave up');
    // the next retry in Tokyo (UTC+9), the UTC instant on hover
    const times = retried!.querySelectorAll('time');
    expect(times[1]!.getAttribute('title')).toBe('2026-11-26 11:30 UTC');
    expect(times[1]!.textContent).toMatch(/\b(20:30|8:30:00 PM)/);

    expect(first!.textContent).toContain('No answer');
    expect(first!.textContent).toContain('no answer within 10 s');
    expect(first!.textContent).toContain('10.0 s');
    // the older attempt of the same delivery carries no second resend
    expect(within(first!).queryByRole('button')).toBeNull();

    await user.click(within(retried!).getByRole('button', { name: /^Resend post.published/ }));
    await waitFor(() => expect(api.calls.some((c) => c.method === 'POST' && c.path === '/webhooks/w-1/deliveries/d-1/resend')).toBe(true));
    // the log is read again after a resend
    await waitFor(() => expect(api.calls.filter((c) => c.method === 'GET').length).toBeGreaterThanOrEqual(2));
  });

  it('pages: newest first, 50 a page, older pages on demand', async () => {
    const user = userEvent.setup();
    const page0 = Array.from({ length: 50 }, (_, i) => entry({ deliveryId: `d-${i}`, at: new Date(Date.UTC(2026, 10, 26, 12, 0) - i * 60_000).toISOString() }));
    const page1 = [entry({ deliveryId: 'd-old', eventType: 'post.deleted' })];
    const api = serve([page0, page1], 51);
    renderWithApp(<DeliveryLog webhookId="w-1" />);
    expect(await screen.findByText('Page 1 of 2 · 51 entries')).toBeTruthy();
    expect(screen.getByRole('button', { name: '← Newer' })).toHaveProperty('disabled', true);
    await user.click(screen.getByRole('button', { name: 'Older →' }));
    expect(await screen.findByText('post.deleted')).toBeTruthy();
    expect(screen.getByText(/Page 2 of 2/)).toBeTruthy();
    expect(api.calls.at(-1)!.query.get('page')).toBe('1');
  });

  it('an empty log says how to get a delivery', async () => {
    serve([[]], 0);
    renderWithApp(<DeliveryLog webhookId="w-1" />);
    expect(await screen.findByText('No deliveries yet')).toBeTruthy();
  });
});
