import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Route, Routes } from 'react-router';
import { describe, expect, it, vi } from 'vitest';
import type { Me } from '../../api/session.js';
import SettingsPage from './SettingsPage.js';
import type { AiSettings } from './links-ai-api.js';
import { apiError, fakeApi, makeMe, renderWithApp, type Handler } from './test-utils.js';

const net = vi.hoisted(() => {
  const holder: { fetch: (input: RequestInfo | URL, init?: RequestInit) => Promise<Response> } = { fetch: () => Promise.reject(new Error('no fake API')) };
  vi.stubGlobal('fetch', (input: RequestInfo | URL, init?: RequestInit) => holder.fetch(input, init));
  return holder;
});

const off: AiSettings = { configured: false, baseUrl: null, model: null, vision: false, hasApiKey: false };

function open(routes: Record<string, Handler>, me: Me = makeMe()) {
  const api = fakeApi(routes);
  net.fetch = api.fetch;
  const r = renderWithApp(
    <Routes>
      <Route path="/settings/*" element={<SettingsPage />} />
    </Routes>,
    { me, path: '/settings/writing-help' },
  );
  return { ...r, api };
}

describe('settings: writing help', () => {
  it('off by default, says nothing is sent; the Ollama button fills the fields; saved, it is on; turned off after confirming', async () => {
    const user = userEvent.setup();
    let saved = off;
    const { api } = open({
      'GET /ai/settings': () => saved,
      'PUT /ai/settings': ({ body }) => {
        const b = body as { baseUrl: string; model: string; vision?: boolean; apiKey?: string };
        saved = { configured: true, baseUrl: b.baseUrl, model: b.model, vision: b.vision ?? false, hasApiKey: Boolean(b.apiKey) };
        return saved;
      },
      'DELETE /ai/settings': () => {
        saved = off;
        return new Response(null, { status: 204 });
      },
    });
    expect((await screen.findByTestId('ai-status')).textContent).toContain('nothing is sent anywhere');
    expect(screen.getByText(/Nothing is sent anywhere until a model is set here/)).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Turn off writing help' })).toBeNull();

    await user.click(screen.getByRole('button', { name: 'Use Ollama (http://127.0.0.1:11434/v1)' }));
    expect(screen.getByLabelText<HTMLInputElement>('Base URL').value).toBe('http://127.0.0.1:11434/v1');
    expect(screen.getByLabelText<HTMLInputElement>('Model').value).toBe('llama3.2');
    // LM Studio changes the address but keeps the model typed
    await user.click(screen.getByRole('button', { name: 'Use LM Studio (http://127.0.0.1:1234/v1)' }));
    expect(screen.getByLabelText<HTMLInputElement>('Base URL').value).toBe('http://127.0.0.1:1234/v1');
    expect(screen.getByLabelText<HTMLInputElement>('Model').value).toBe('llama3.2');
    await user.click(screen.getByRole('checkbox', { name: /The model reads images/ }));
    await user.click(screen.getByRole('button', { name: 'Turn on writing help' }));
    await waitFor(() => expect(api.calls.find((c) => c.method === 'PUT')?.body).toEqual({ baseUrl: 'http://127.0.0.1:1234/v1', model: 'llama3.2', vision: true }));
    await waitFor(() => expect(screen.getByTestId('ai-status').textContent).toContain('On'));
    expect(screen.getByTestId('ai-status').textContent).toContain('llama3.2');
    expect(screen.getByText(/Saved: writing help is on/)).toBeTruthy();

    await user.click(screen.getByRole('button', { name: 'Turn off writing help' }));
    const dialog = await screen.findByRole('dialog');
    expect(dialog.textContent).toContain('forgotten');
    await user.click(within(dialog).getByRole('button', { name: 'Turn off' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(api.calls.some((c) => c.method === 'DELETE' && c.path === '/ai/settings')).toBe(true);
    await waitFor(() => expect(screen.getByTestId('ai-status').textContent).toContain('Off'));
    expect(screen.getByLabelText<HTMLInputElement>('Base URL').value).toBe('');
  });

  it('the endpoint check’s refusal is shown by the field it names', async () => {
    const user = userEvent.setup();
    open({
      'GET /ai/settings': () => off,
      'PUT /ai/settings': () => apiError(400, 'VALIDATION_FAILED', 'model: not served', [{ path: 'model', message: 'The server at http://127.0.0.1:11434/v1 has no model "llama9": it lists llama3.2' }]),
    });
    await user.type(await screen.findByLabelText('Base URL'), 'http://127.0.0.1:11434/v1');
    await user.type(screen.getByLabelText('Model'), 'llama9');
    await user.click(screen.getByRole('button', { name: 'Turn on writing help' }));
    const error = await screen.findByText(/has no model "llama9"/);
    const model = screen.getByLabelText('Model');
    expect(model.getAttribute('aria-invalid')).toBe('true');
    expect(model.getAttribute('aria-describedby')).toContain(error.id);
    expect(screen.getByLabelText('Base URL').getAttribute('aria-invalid')).toBeNull();
    expect(screen.getAllByText(/has no model/)).toHaveLength(1);
    expect(screen.getByTestId('ai-status').textContent).toContain('Off');
  });

  it('a saved key is kept unless a new one is typed; members read but cannot change', async () => {
    const user = userEvent.setup();
    const on: AiSettings = { configured: true, baseUrl: 'https://api.example.com/v1', model: 'gpt-4o-mini', vision: false, hasApiKey: true };
    const { api, unmount } = open({ 'GET /ai/settings': () => on, 'PUT /ai/settings': ({ body }) => ({ ...on, ...(body as object) }) });
    expect(await screen.findByText(/A key is saved/)).toBeTruthy();
    await user.clear(screen.getByLabelText('Model'));
    await user.type(screen.getByLabelText('Model'), 'gpt-4o');
    await user.click(screen.getByRole('button', { name: 'Save changes' }));
    await waitFor(() => expect(api.calls.find((c) => c.method === 'PUT')?.body).toEqual({ baseUrl: 'https://api.example.com/v1', model: 'gpt-4o', vision: false }));
    // at another address the saved key is not sent: typed again, or none
    await user.click(screen.getByRole('button', { name: /^Use Ollama/ }));
    expect(screen.getByText(/only sent to the address it was saved for/)).toBeTruthy();
    expect(screen.getByLabelText('API key (optional)').getAttribute('placeholder')).toBe('');
    await user.click(screen.getByRole('button', { name: 'Save changes' }));
    await waitFor(() => expect(api.calls.filter((c) => c.method === 'PUT').at(-1)?.body).toEqual({ baseUrl: 'http://127.0.0.1:11434/v1', model: 'gpt-4o', vision: false, apiKey: null }));
    unmount();

    open({ 'GET /ai/settings': () => on }, makeMe('member'));
    expect((await screen.findByTestId('ai-status')).textContent).toContain('gpt-4o-mini');
    expect(screen.getByLabelText('Model').closest('fieldset')?.disabled).toBe(true);
    expect(screen.queryByRole('button', { name: 'Save changes' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Turn off writing help' })).toBeNull();
  });
});
