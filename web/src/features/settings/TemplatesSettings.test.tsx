import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Route, Routes } from 'react-router';
import { describe, expect, it, vi } from 'vitest';
import SettingsPage from './SettingsPage.js';
import { apiError, fakeApi, renderWithApp, type Handler } from './test-utils.js';

const net = vi.hoisted(() => {
  const holder: { fetch: (input: RequestInfo | URL, init?: RequestInit) => Promise<Response> } = { fetch: () => Promise.reject(new Error('no fake API')) };
  vi.stubGlobal('fetch', (input: RequestInfo | URL, init?: RequestInit) => holder.fetch(input, init));
  return holder;
});

const stamp = { createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z' };
const channels = [{ id: 'tg', name: 'Acme News', identifier: 'telegram', picture: null, disabled: false, profile: null, refreshNeeded: false, postingTimes: [], settings: {}, ...stamp }];

function open(routes: Record<string, Handler>) {
  const api = fakeApi({ 'GET /integrations': () => channels, ...routes });
  net.fetch = api.fetch;
  renderWithApp(
    <Routes>
      <Route path="/settings/*" element={<SettingsPage />} />
    </Routes>,
    { path: '/settings/templates' },
  );
  return api;
}

describe('settings: templates & signatures', () => {
  it('lists, creates, edits and deletes templates and signatures; an overlapping auto-add signature is named on the channels', async () => {
    const user = userEvent.setup();
    let templates = [{ id: 't1', name: 'Launch', description: 'For launches', body: { posts: [{ value: [{ content: 'Meet {{product}}' }, { content: 'Thread' }] }] }, placeholders: ['product'], ...stamp }];
    let signatures = [{ id: 's1', name: 'Team', content: '— the team', autoAdd: true, integrationIds: [] as string[], ...stamp }];
    const api = open({
      'GET /templates': () => templates,
      'POST /templates': ({ body }) => {
        const b = body as { name: string; description: string; body: (typeof templates)[number]['body'] };
        templates = [...templates, { id: 't2', ...b, placeholders: [], ...stamp }];
        return templates.at(-1);
      },
      'PUT /templates/{id}': ({ body, params }) => {
        templates = templates.map((t) => (t.id === params.id ? { ...t, ...(body as object) } : t));
        return templates.find((t) => t.id === params.id);
      },
      'DELETE /templates/{id}': ({ params }) => {
        templates = templates.filter((t) => t.id !== params.id);
        return { id: params.id, deleted: true };
      },
      'GET /signatures': () => signatures,
      'POST /signatures': () => apiError(409, 'CONFLICT', 'overlap', [{ path: 'integrationIds', message: 'The auto-add signature "Team" already applies to every channel' }]),
      'DELETE /signatures/{id}': ({ params }) => {
        signatures = signatures.filter((s) => s.id !== params.id);
        return { id: params.id, deleted: true };
      },
    });

    expect(await screen.findByRole('heading', { name: 'Launch' })).toBeTruthy();
    expect(screen.getByText('{{product}}')).toBeTruthy();
    expect(screen.getByText('Added automatically')).toBeTruthy();

    await user.click(screen.getByRole('button', { name: 'New template' }));
    const form = await screen.findByRole('dialog', { name: 'New template' });
    await user.type(within(form).getByRole('textbox', { name: 'Name' }), 'Weekly');
    fireEvent.change(within(form).getByRole('textbox', { name: /^Text/ }), { target: { value: 'Week {{n}}' } });
    expect(within(form).getByText('Placeholders: {{n}}')).toBeTruthy();
    await user.click(within(form).getByRole('button', { name: 'Create template' }));
    expect(await screen.findByRole('heading', { name: 'Weekly' })).toBeTruthy();
    expect(api.calls.find((c) => c.method === 'POST' && c.path === '/templates')!.body).toEqual({ name: 'Weekly', description: '', body: { posts: [{ value: [{ content: 'Week {{n}}' }] }] } });

    // editing changes the first item's text and keeps the thread item
    await user.click(screen.getByRole('button', { name: 'Edit Launch' }));
    const edit = await screen.findByRole('dialog', { name: 'Edit “Launch”' });
    await user.clear(within(edit).getByRole('textbox', { name: /^Text/ }));
    await user.type(within(edit).getByRole('textbox', { name: /^Text/ }), 'New text');
    await user.click(within(edit).getByRole('button', { name: 'Save changes' }));
    await waitFor(() => expect(api.calls.some((c) => c.method === 'PUT')).toBe(true));
    expect((api.calls.find((c) => c.method === 'PUT')!.body as { body: unknown }).body).toEqual({ posts: [{ value: [{ content: 'New text' }, { content: 'Thread' }] }] });

    await user.click(screen.getByRole('button', { name: 'Delete Weekly' }));
    await user.click(await screen.findByRole('button', { name: 'Delete template' }));
    await waitFor(() => expect(screen.queryByRole('heading', { name: 'Weekly' })).toBeNull());

    await user.click(screen.getByRole('button', { name: 'New signature' }));
    const sig = await screen.findByRole('dialog', { name: 'New signature' });
    await user.type(within(sig).getByRole('textbox', { name: 'Name' }), 'Other');
    await user.type(within(sig).getByRole('textbox', { name: /^Signature text/ }), 'Bye');
    await user.click(within(sig).getByRole('checkbox', { name: /Add automatically/ }));
    await user.click(within(sig).getByRole('checkbox', { name: /Acme News/ }));
    await user.click(within(sig).getByRole('button', { name: 'Create signature' }));
    expect((await within(sig).findByRole('alert')).textContent).toContain('already applies to every channel');
    expect(api.calls.find((c) => c.method === 'POST' && c.path === '/signatures')!.body).toEqual({ name: 'Other', content: 'Bye', autoAdd: true, integrationIds: ['tg'] });
    await user.click(within(sig).getByRole('button', { name: 'Cancel' }));

    await user.click(screen.getByRole('button', { name: 'Delete Team' }));
    await user.click(await screen.findByRole('button', { name: 'Delete signature' }));
    expect(await screen.findByText('No signatures yet')).toBeTruthy();
  });
});
