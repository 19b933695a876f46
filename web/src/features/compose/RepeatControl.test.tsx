import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MeProvider, type Me } from '../../api/session.js';
import { channel, json, resetComposer, serve, type Call } from '../../test/kit.js';

// The typed client keeps the fetch it found when created: stub it before anything imports it.
const fetchMock = vi.hoisted(() => {
  const fn = vi.fn<(input: RequestInfo | URL, init?: RequestInit) => Promise<Response>>();
  vi.stubGlobal('fetch', fn);
  return fn;
});

const { default: ComposeDialog } = await import('./ComposeDialog.js');
const { buildRule, describeRule, NO_REPEAT } = await import('./repeat.js');

const me: Me = {
  user: { id: 'u1', email: 'olga@example.test', name: 'Olga', timezone: 'Europe/Berlin' },
  organization: { id: 'o1', name: 'Acme', role: 'owner' },
  organizations: [{ id: 'o1', name: 'Acme', role: 'owner' }],
  csrfToken: 'csrf-1',
};

const tg = channel({ id: 'tg', name: 'Acme News', identifier: 'telegram' });
const media = { minItems: 0, maxItems: 10, mixed: true, onThreadItems: true, image: { maxCount: 4, mimeTypes: ['image/png'] } };
const tgRules = { rules: '', maxLength: 4096, counting: 'characters', editor: 'html', thread: { supported: true, kind: 'reply' }, media, settings: 'No additional settings required', tools: [], defaults: {} };

function open(initial: Parameters<typeof ComposeDialog>[0]['initial']) {
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false }, mutations: { retry: false } } });
  const onOpenChange = vi.fn();
  render(
    <MemoryRouter>
      <QueryClientProvider client={queryClient}>
        <MeProvider me={me}>
          <ComposeDialog open onOpenChange={onOpenChange} {...(initial ? { initial } : {})} />
        </MeProvider>
      </QueryClientProvider>
    </MemoryRouter>,
  );
  return { onOpenChange };
}

afterEach(() => resetComposer(fetchMock));

describe('the rule of a repeating post', () => {
  it('is built from the local date and time, weekdays in week order, and summarised', () => {
    const rule = buildRule({ ...NO_REPEAT, frequency: 'weekly', weekdays: ['WE', 'MO'], ends: 'after', count: 10 }, { date: '2026-07-01', time: '09:00' }, 'Europe/Berlin');
    expect(rule).toEqual({ frequency: 'weekly', interval: 1, weekdays: ['MO', 'WE'], time: '09:00', timeZone: 'Europe/Berlin', startDate: '2026-07-01', count: 10 });
    expect(describeRule(rule)).toBe('Every week on Mon, Wed at 09:00 Europe/Berlin, 10 times');
    const monthly = buildRule({ ...NO_REPEAT, frequency: 'monthly', interval: 2, ends: 'on', until: '2026-12-31' }, { date: '2026-07-15', time: '18:30' }, 'UTC');
    expect(monthly).toEqual({ frequency: 'monthly', interval: 2, monthDays: [15], time: '18:30', timeZone: 'UTC', startDate: '2026-07-15', until: '2026-12-31' });
    expect(describeRule(monthly)).toMatch(/^Every 2 months on day 15 at 18:30 UTC, until Dec 31, 2026$/);
    expect(describeRule({ frequency: 'daily', interval: 3, time: '07:00', timeZone: 'UTC', startDate: '2026-07-01' })).toBe('Every 3 days at 07:00 UTC');
  });
});

describe('Repeat in the composer', () => {
  it('saves weekly on two days, ending after N posts, through POST /series (not /posts), with the API’s rule errors beside the field', async () => {
    const calls: Call[] = [];
    let tries = 0;
    serve(fetchMock,
      {
        'GET /integrations': () => [tg],
        'GET /integration-settings/:id': () => ({ output: tgRules }),
        'POST /series': () => {
          tries += 1;
          if (tries === 1) {
            return json({ statusCode: 400, code: 'VALIDATION_FAILED', message: 'rule.count: Too many', fields: [{ path: 'rule.count', message: 'At most 1000 occurrences' }], requestId: 'r' }, 400);
          }
          return json(
            {
              series: { id: 's1', rule: { frequency: 'weekly', interval: 1, weekdays: ['MO', 'WE'], time: '09:00', timeZone: 'Europe/Berlin', startDate: '2026-07-01', count: 10 } },
              occurrences: [{ index: 0, publishDate: '2026-07-01T07:00:00.000Z', posts: [{ postId: 'p1', integration: 'tg', group: 'g1' }] }],
            },
            201,
          );
        },
      },
      calls,
    );
    const { onOpenChange } = open({ date: '2026-07-01T07:00:00.000Z', integrationIds: ['tg'] });
    const dialog = await screen.findByRole('dialog', { name: 'New post' });
    await within(dialog).findByRole('button', { name: /Acme News/ });
    fireEvent.change(within(dialog).getByLabelText('Post text'), { target: { value: 'Weekly tips' } });

    const repeat = within(dialog).getByLabelText<HTMLSelectElement>('Repeat');
    expect(repeat.value).toBe('none');
    expect(within(dialog).getByRole('button', { name: 'Post now' })).toBeTruthy();
    await userEvent.selectOptions(repeat, 'weekly');
    // starts on the chosen date's weekday (1 July 2026 is a Wednesday); Monday added
    expect(within(dialog).getByRole<HTMLInputElement>('checkbox', { name: 'Wednesday' }).checked).toBe(true);
    await userEvent.click(within(dialog).getByRole('checkbox', { name: 'Monday' }));
    await userEvent.selectOptions(within(dialog).getByLabelText('Ends'), 'after');
    const count = within(dialog).getByLabelText<HTMLInputElement>('Number of posts');
    fireEvent.change(count, { target: { value: '5000' } });
    expect(within(dialog).getByText(/^Every week on Mon, Wed at 09:00 Europe\/Berlin, 5000 times/)).toBeTruthy();
    // posting now or into the queue makes no sense for a series
    expect(within(dialog).queryByRole('button', { name: 'Post now' })).toBeNull();
    expect(within(dialog).queryByRole('button', { name: 'Add to queue' })).toBeNull();

    // over 1000 is caught here first
    await userEvent.click(within(dialog).getByRole('button', { name: 'Schedule repeating' }));
    expect(await within(dialog).findByText('Between 1 and 1000')).toBeTruthy();
    expect(calls.filter((c) => c.method === 'POST')).toEqual([]);

    // the API's refusal of a rule field shows beside it
    fireEvent.change(count, { target: { value: '10' } });
    await userEvent.click(within(dialog).getByRole('button', { name: 'Schedule repeating' }));
    expect(await within(dialog).findByText('At most 1000 occurrences')).toBeTruthy();
    expect(count.getAttribute('aria-invalid')).toBe('true');
    expect(within(dialog).getByRole('button', { name: 'repeat: number of posts' })).toBeTruthy();

    await userEvent.click(within(dialog).getByRole('button', { name: 'Schedule repeating' }));
    await waitFor(() => expect(onOpenChange).toHaveBeenCalledWith(false));
    const sent = calls.filter((c) => c.method === 'POST');
    expect(sent.map((c) => c.path)).toEqual(['/series', '/series']);
    expect(sent[1]!.body).toMatchObject({
      type: 'schedule',
      rule: { frequency: 'weekly', interval: 1, weekdays: ['MO', 'WE'], time: '09:00', timeZone: 'Europe/Berlin', startDate: '2026-07-01', count: 10 },
      posts: [{ integration: { id: 'tg' }, value: [{ content: '<p>Weekly tips</p>' }] }],
    });
    expect((sent[1]!.body as { rule: Record<string, unknown> }).rule).not.toHaveProperty('until');
    expect(sent[1]!.body).not.toHaveProperty('date');
  });

  it('saves a repeating draft, and is not offered when editing an existing post', async () => {
    const calls: Call[] = [];
    serve(fetchMock,
      {
        'GET /integrations': () => [tg],
        'GET /integration-settings/:id': () => ({ output: tgRules }),
        'POST /series': () =>
          json({ series: { id: 's1', rule: { frequency: 'daily', interval: 2, time: '09:00', timeZone: 'Europe/Berlin', startDate: '2026-07-01' } }, occurrences: [] }, 201),
      },
      calls,
    );
    open({ date: '2026-07-01T07:00:00.000Z', integrationIds: ['tg'] });
    const dialog = await screen.findByRole('dialog', { name: 'New post' });
    await within(dialog).findByRole('button', { name: /Acme News/ });
    fireEvent.change(within(dialog).getByLabelText('Post text'), { target: { value: 'Daily' } });
    await userEvent.selectOptions(within(dialog).getByLabelText('Repeat'), 'daily');
    fireEvent.change(within(dialog).getByLabelText('Every how many days'), { target: { value: '2' } });
    await userEvent.click(within(dialog).getByRole('button', { name: 'Save as draft' }));
    await waitFor(() => expect(calls.some((c) => c.method === 'POST')).toBe(true));
    expect(calls.find((c) => c.method === 'POST')).toMatchObject({ path: '/series', body: { type: 'draft', rule: { frequency: 'daily', interval: 2, startDate: '2026-07-01', time: '09:00' } } });
    cleanup();

    serve(fetchMock,
      {
        'GET /integrations': () => [tg],
        'GET /integration-settings/:id': () => ({ output: tgRules }),
        'GET /posts/group/:group': () => ({
          posts: [
            {
              id: 'p1',
              content: '<p>Old</p>',
              publishDate: '2026-07-01T07:00:00.000Z',
              releaseURL: null,
              releaseId: null,
              state: 'QUEUE',
              intervalInDays: null,
              group: 'g1',
              creationMethod: 'WEB',
              settings: {},
              tags: [],
              integration: { id: 'tg', providerIdentifier: 'telegram', name: 'Acme News', picture: null },
              image: [],
              error: null,
              delay: 0,
              publishedAt: null,
              thread: [],
              createdAt: '2026-06-01T00:00:00.000Z',
              updatedAt: '2026-06-01T00:00:00.000Z',
            },
          ],
        }),
      },
      [],
    );
    open({ group: 'g1' });
    const edit = await screen.findByRole('dialog', { name: 'Edit post' });
    await within(edit).findByLabelText('Post text');
    expect(within(edit).queryByLabelText('Repeat')).toBeNull();
  });
});
