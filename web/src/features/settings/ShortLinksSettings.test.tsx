import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Route, Routes } from 'react-router';
import { describe, expect, it, vi } from 'vitest';
import type { Me } from '../../api/session.js';
import SettingsPage from './SettingsPage.js';
import type { ShortLinkSettings } from './links-ai-api.js';
import { applyUtmTemplate, unknownPlaceholders } from './ShortLinksSettings.js';
import { apiError, fakeApi, makeMe, renderWithApp, type Handler } from './test-utils.js';

const net = vi.hoisted(() => {
  const holder: { fetch: (input: RequestInfo | URL, init?: RequestInit) => Promise<Response> } = { fetch: () => Promise.reject(new Error('no fake API')) };
  vi.stubGlobal('fetch', (input: RequestInfo | URL, init?: RequestInit) => holder.fetch(input, init));
  return holder;
});

const PROVIDERS: ShortLinkSettings['providers'] = [
  { id: 'builtin', name: 'Built in', needsApiKey: false, needsDomain: false, needsApiUrl: false },
  { id: 'dub', name: 'Dub', needsApiKey: true, needsDomain: false, needsApiUrl: false },
  { id: 'shortio', name: 'Short.io', needsApiKey: true, needsDomain: true, needsApiUrl: false },
  { id: 'kutt', name: 'Kutt', needsApiKey: true, needsDomain: false, needsApiUrl: false },
];

const initial: ShortLinkSettings = { provider: 'builtin', domain: null, apiUrl: null, utmTemplate: null, hasApiKey: false, builtinBaseUrl: 'https://tidings.example.com/s', shortLinkLength: 36, providers: PROVIDERS };

function open(routes: Record<string, Handler>, me: Me = makeMe()) {
  const api = fakeApi(routes);
  net.fetch = api.fetch;
  const r = renderWithApp(
    <Routes>
      <Route path="/settings/*" element={<SettingsPage />} />
    </Routes>,
    { me, path: '/settings/short-links' },
  );
  return { ...r, api };
}

describe('applyUtmTemplate', () => {
  it('fills the placeholders, encoded, and adds them to the address', () => {
    expect(applyUtmTemplate('https://example.com/a', 'utm_source={platform}&utm_campaign={channel}', { platform: 'x', channel: 'Acme News' })).toBe('https://example.com/a?utm_source=x&utm_campaign=Acme+News');
    expect(applyUtmTemplate('https://example.com/a?ref=1', '?utm_medium=social')).toBe('https://example.com/a?ref=1&utm_medium=social');
    // a parameter the address carries already is kept as written
    expect(applyUtmTemplate('https://example.com/a?utm_source=news', 'utm_source={platform}&utm_medium=social', { platform: 'x' })).toBe('https://example.com/a?utm_source=news&utm_medium=social');
    expect(applyUtmTemplate('https://example.com/a', '  ')).toBe('https://example.com/a');
    // an unknown placeholder stays as written, so the example shows the typo
    expect(applyUtmTemplate('https://example.com/a', 'utm_source={platfrom}', { platform: 'x' })).toBe('https://example.com/a?utm_source=%7Bplatfrom%7D');
    expect(unknownPlaceholders('a={platform}&b={platfrom}&c={}')).toEqual(['platfrom', '']);
  });
});

describe('settings: short links', () => {
  it('the owner sets a UTM template with a live example and saves it (PUT with the template, the key left out)', async () => {
    const user = userEvent.setup();
    let saved = initial;
    const { api } = open({
      'GET /short-links/settings': () => saved,
      'PUT /short-links/settings': ({ body }) => {
        saved = { ...saved, ...(body as Partial<ShortLinkSettings>) };
        return saved;
      },
    });
    const template = await screen.findByRole('textbox', { name: 'UTM template' });
    expect(screen.getByRole('combobox', { name: 'Shortener' })).toHaveProperty('value', 'builtin');
    expect(screen.getByText(/links are https:\/\/tidings\.example\.com\/s\/…/)).toBeTruthy();
    // no key field for the built-in shortener
    expect(screen.queryByLabelText(/API key/)).toBeNull();
    await user.type(template, 'utm_source={{platform}&utm_medium=social&utm_campaign={{group}&utm_content={{channel}');
    expect(screen.getByTestId('utm-example').textContent).toBe('https://example.com/spring-sale?utm_source=linkedin&utm_medium=social&utm_campaign=g7Kp2xQ&utm_content=Acme+News');
    await user.click(screen.getByRole('button', { name: 'Save short links' }));
    await waitFor(() => expect(api.calls.find((c) => c.method === 'PUT')?.body).toEqual({ provider: 'builtin', utmTemplate: 'utm_source={platform}&utm_medium=social&utm_campaign={group}&utm_content={channel}' }));
    expect(await screen.findByText(/Saved\. Posts published from now on use these settings/)).toBeTruthy();
  });

  it('Short.io needs a key and a domain; the provider’s refusal (422) is shown by the key field', async () => {
    const user = userEvent.setup();
    const { api } = open({
      'GET /short-links/settings': () => initial,
      'PUT /short-links/settings': () => apiError(422, 'SHORTENER_REJECTED', 'Short.io refused the API key: Short.io refused the API key (401): Unauthorized', [{ path: 'apiKey', message: 'Short.io refused the API key (401): Unauthorized' }]),
    });
    await user.selectOptions(await screen.findByRole('combobox', { name: 'Shortener' }), 'shortio');
    const key = screen.getByLabelText('Short.io API key');
    expect(screen.getByLabelText('Short domain')).toBeTruthy();
    expect(screen.getByLabelText('API URL (optional)')).toBeTruthy();
    await user.type(key, 'sk_wrong');
    await user.type(screen.getByLabelText('Short domain'), 'go.acme.test');
    await user.click(screen.getByRole('button', { name: 'Save short links' }));
    const error = await screen.findByText('Short.io refused the API key (401): Unauthorized');
    expect(key.getAttribute('aria-invalid')).toBe('true');
    expect(key.getAttribute('aria-describedby')).toContain(error.id);
    // said once, by the field, not again at the foot
    expect(screen.getAllByText(/refused the API key/)).toHaveLength(1);
    expect(api.calls.find((c) => c.method === 'PUT')?.body).toEqual({ provider: 'shortio', utmTemplate: null, domain: 'go.acme.test', apiUrl: null, apiKey: 'sk_wrong' });
    // typing again clears the verdict about the old value
    await user.type(key, 'x');
    expect(screen.queryByText(/refused the API key/)).toBeNull();
  });

  it('a refused domain is shown by the domain field; a refusal naming no field by the key field', async () => {
    const user = userEvent.setup();
    let answer = apiError(422, 'SHORTENER_REJECTED', 'Short.io refused the settings: Short.io: go.acme.test is not one of this account’s domains', [{ path: 'domain', message: 'Short.io: go.acme.test is not one of this account’s domains' }]);
    open({ 'GET /short-links/settings': () => ({ ...initial, provider: 'shortio', domain: 'go.acme.test', hasApiKey: true }), 'PUT /short-links/settings': () => answer });
    const domain = await screen.findByLabelText('Short domain');
    await user.click(screen.getByRole('button', { name: 'Save short links' }));
    const error = await screen.findByText('Short.io: go.acme.test is not one of this account’s domains');
    expect(domain.getAttribute('aria-describedby')).toContain(error.id);
    expect(screen.getByLabelText('Short.io API key').getAttribute('aria-invalid')).toBeNull();

    answer = apiError(422, 'SHORTENER_REJECTED', 'Short.io could not be reached: timeout');
    await user.click(screen.getByRole('button', { name: 'Save short links' }));
    const unreachable = await screen.findByText('Short.io could not be reached: timeout');
    expect(screen.getByLabelText('Short.io API key').getAttribute('aria-describedby')).toContain(unreachable.id);
    expect(screen.getAllByText(/could not be reached/)).toHaveLength(1);
  });

  it('a validation refusal naming a field is shown by that field', async () => {
    const user = userEvent.setup();
    open({
      'GET /short-links/settings': () => ({ ...initial, provider: 'dub', hasApiKey: true }),
      'PUT /short-links/settings': () => apiError(400, 'VALIDATION_FAILED', 'utmTemplate: unknown placeholder', [{ path: 'utmTemplate', message: 'Unknown placeholder {platfrom}: use {platform}, {channel}, {group}, {post} or {date}' }]),
    });
    const key = await screen.findByLabelText('Dub API key');
    // a saved key is kept unless a new one is typed
    expect(screen.getByText(/A key is saved/)).toBeTruthy();
    expect(key.getAttribute('placeholder')).toContain('saved');
    const template = screen.getByRole('textbox', { name: 'UTM template' });
    await user.type(template, 'utm_source={{platfrom}');
    expect(screen.getByText(/Not a placeholder: \{platfrom\}/)).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Save short links' }));
    const error = await screen.findByText(/Unknown placeholder \{platfrom\}/);
    expect(template.getAttribute('aria-describedby')).toContain(error.id);
    expect(key.getAttribute('aria-invalid')).toBeNull();
  });

  it('members read the settings but cannot change them', async () => {
    open({ 'GET /short-links/settings': () => ({ ...initial, utmTemplate: 'utm_source={platform}' }) }, makeMe('member'));
    const template = await screen.findByRole('textbox', { name: 'UTM template' });
    expect((template as HTMLInputElement).value).toBe('utm_source={platform}');
    expect(template.closest('fieldset')?.disabled).toBe(true);
    expect(screen.getByText(/Only owners and admins can change these settings/)).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Save short links' })).toBeNull();
  });
});
