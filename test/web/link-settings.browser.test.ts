import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startOpenAiSimulator, type OpenAiSimulator } from '../simulators/openai.simulator.js';
import { BROWSER_UA } from '../../src/modules/links/providers/shortener.simulator.js';
import { SHORTIO_API_ORIGIN, SHORTIO_STATISTICS_ORIGIN, startShortioSimulator, type ShortioSimulator } from '../../src/modules/links/providers/shortio/shortio.simulator.js';
import { checkA11y } from './axe.js';
import { connectTelegramAndBluesky, screenshot, startWebHarness, type SignedIn, type WebHarness } from './harness.js';
import { checkAtPhoneWidth } from './layout.js';

// pages load lazily on a busy 2-core machine: polls wait up to 15 s instead of the default 1 s
vi.setConfig({ expect: { poll: { timeout: 15_000, interval: 100 } } });

interface AiSettings {
  configured: boolean;
  baseUrl: string | null;
  model: string | null;
  hasApiKey: boolean;
}

interface ShortLinkSettings {
  provider: string;
  domain: string | null;
  utmTemplate: string | null;
  hasApiKey: boolean;
}

/**
 * Settings → Short links (issue 32) in Chromium against the real service and the Short.io
 * simulator: the owner sets a UTM template (the live example shows it applied; a reload reads it
 * back), then switches to Short.io with a key Short.io refuses: its refusal is shown by the key
 * field and nothing is saved; with the account's key it is saved and the key is never shown again.
 * A post published with short links on shows them on its page, with the clicks of people and the
 * fetches of a platform's bot apart.
 * Settings → Writing help against the OpenAI simulator: off at first; a model the endpoint does not
 * list and a missing key are refused by their fields; saved, it is on; turned off after confirming.
 * Both settings pages are looked at on a desktop and at 390 px, with axe.
 */
describe('short links and writing help settings in Chromium', () => {
  let h: WebHarness;
  let shortio: ShortioSimulator;
  let model: OpenAiSimulator;
  let olga: SignedIn;

  beforeAll(async () => {
    model = await startOpenAiSimulator({ apiKey: 'sk-local-model', models: ['llama3.2', 'qwen2.5'] });
    shortio = await startShortioSimulator({ apiKeys: ['sk_live_acme'], domains: ['go.acme.test'] });
    h = await startWebHarness({
      env: {
        PLATFORM_ORIGINS: [`${SHORTIO_API_ORIGIN}=${shortio.origin}`, `${SHORTIO_STATISTICS_ORIGIN}=${shortio.origin}`].join(','),
        // the model simulator of the writing-help part listens on loopback
        ALLOW_PRIVATE_TARGETS: 'true',
      },
    });
    olga = await h.signUp({ name: 'Olga', organization: 'Acme' });
  });
  afterAll(async () => {
    await h?.close();
    await shortio?.close();
    await model?.close();
  });

  const settings = async () => (await olga.form.api('GET', '/public/v1/short-links/settings')).json<ShortLinkSettings>();
  const atPhoneWidth = (page: Page, name: string) => checkAtPhoneWidth(page, name, /./);

  it('short links: a UTM template with its live example, saved and read back after a reload', async () => {
    const { page } = olga;
    await page.goto('/settings');
    await page.getByRole('link', { name: 'Short links' }).click();
    await page.waitForURL(/\/settings\/short-links$/);
    const shortener = page.getByLabel('Shortener');
    await expect.poll(() => shortener.inputValue()).toBe('builtin');
    // the built-in shortener needs no key
    expect(await page.getByLabel(/API key/).count()).toBe(0);
    expect(await page.locator('.field').filter({ has: shortener }).textContent()).toContain(`${h.origin}/s`);

    const template = page.getByLabel('UTM template');
    await template.fill('utm_source={platform}&utm_medium=social&utm_campaign={group}');
    await expect.poll(() => page.getByTestId('utm-example').textContent()).toBe('https://example.com/spring-sale?utm_source=linkedin&utm_medium=social&utm_campaign=g7Kp2xQ');
    // a typo in a placeholder is pointed out before saving, and refused by the service by the field
    await template.fill('utm_source={platfrom}');
    await expect.poll(() => page.getByText('Not a placeholder: {platfrom}').count()).toBe(1);
    await page.getByRole('button', { name: 'Save short links' }).click();
    const refused = page.locator('.field').filter({ has: template }).getByRole('alert');
    await expect.poll(() => refused.textContent()).toContain('{platfrom}');
    expect(await template.getAttribute('aria-invalid')).toBe('true');
    expect((await settings()).utmTemplate).toBeNull();

    await template.fill('utm_source={platform}&utm_medium=social&utm_campaign={group}');
    await page.getByRole('button', { name: 'Save short links' }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Saved' }).count()).toBe(1);
    expect(await settings()).toMatchObject({ provider: 'builtin', utmTemplate: 'utm_source={platform}&utm_medium=social&utm_campaign={group}' });
    await page.reload();
    await expect.poll(() => page.getByLabel('UTM template').inputValue()).toBe('utm_source={platform}&utm_medium=social&utm_campaign={group}');
    await screenshot(page, 'settings-short-links');
    await checkA11y(page, 'Settings → Short links');
    await atPhoneWidth(page, 'settings-short-links-390');
  });

  it('short links: Short.io with a key it refuses shows its refusal by the key field; the right key is saved and never shown', async () => {
    const { page } = olga;
    await page.goto('/settings/short-links');
    await page.getByLabel('Shortener').selectOption('shortio');
    const key = page.getByLabel('Short.io API key');
    await key.fill('sk_wrong');
    await page.getByLabel('Short domain').fill('go.acme.test');
    await page.getByRole('button', { name: 'Save short links' }).click();
    const keyError = page.locator('.field').filter({ has: key }).getByRole('alert');
    await expect.poll(() => keyError.textContent()).toContain('Short.io refused the API key');
    expect(await key.getAttribute('aria-invalid')).toBe('true');
    const describedBy = (await key.getAttribute('aria-describedby')) ?? '';
    expect(describedBy.split(' ')).toContain(await keyError.getAttribute('id'));
    await screenshot(page, 'settings-short-links-refused');
    await checkA11y(page, 'Settings → Short links, a refused key');
    await atPhoneWidth(page, 'settings-short-links-refused-390');
    // nothing was saved
    expect(await settings()).toMatchObject({ provider: 'builtin', hasApiKey: false });

    await key.fill('sk_live_acme');
    await page.getByRole('button', { name: 'Save short links' }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Saved' }).count()).toBe(1);
    expect(await settings()).toMatchObject({ provider: 'shortio', domain: 'go.acme.test', hasApiKey: true, utmTemplate: 'utm_source={platform}&utm_medium=social&utm_campaign={group}' });
    await page.reload();
    await expect.poll(() => page.getByLabel('Shortener').inputValue()).toBe('shortio');
    expect(await page.getByLabel('Short.io API key').inputValue()).toBe('');
    expect(await page.getByText('A key is saved').count()).toBe(1);
    expect(await page.content()).not.toContain('sk_live_acme');
  });

  it('the post page lists a published post’s short links with their clicks, people and bots apart', async () => {
    const { page, form } = olga;
    const put = await form.api('PUT', '/public/v1/short-links/settings', { provider: 'builtin', utmTemplate: 'utm_source={platform}&utm_medium=social' });
    expect(put.statusCode, put.body).toBe(200);
    const { telegram } = await connectTelegramAndBluesky(olga);
    const made = await form.api('POST', '/public/v1/posts', {
      type: 'now',
      date: new Date().toISOString(),
      shortLink: true,
      tags: [],
      posts: [{ integration: { id: telegram.id }, value: [{ content: '<p>Spring sale: https://acme.example/spring-sale</p>', image: [] }] }],
    });
    expect(made.statusCode, made.body).toBe(201);
    const { postId } = made.json<{ postId: string }[]>()[0]!;
    await expect.poll(async () => (await form.api('GET', `/public/v1/posts/${postId}`)).json<{ state: string }>().state, { timeout: 30_000 }).toBe('PUBLISHED');
    const [link] = (await form.api('GET', `/public/v1/posts/${postId}/links`)).json<{ links: { shortUrl: string; targetUrl: string }[] }>().links;
    expect(link!.targetUrl).toBe('https://acme.example/spring-sale?utm_source=telegram&utm_medium=social');
    // two people follow it, a platform's preview fetcher once
    const visit = (userAgent: string) => h.t.app.inject({ method: 'GET', url: new URL(link!.shortUrl).pathname, headers: { 'user-agent': userAgent } });
    for (const ua of [BROWSER_UA, BROWSER_UA, 'TelegramBot (like TwitterBot)']) expect((await visit(ua)).statusCode).toBe(302);

    await page.goto(`/posts/${postId}`);
    const section = page.getByRole('region', { name: 'Links' });
    await expect.poll(() => section.textContent()).toContain('2 people');
    const text = (await section.textContent()) ?? '';
    expect(text).toContain(new URL(link!.shortUrl).host);
    expect(text).toContain('goes to https://acme.example/spring-sale?utm_source=telegram&utm_medium=social');
    expect(text).toMatch(/Bot fetches\s*1/);
    // the post's figures show the clicks as the shortener's, not as Telegram's
    const figures = page.getByRole('region', { name: 'Figures' });
    await expect.poll(() => figures.textContent()).toContain('Link clicks are counted by the shortener; Telegram does not report figures for single posts.');
    expect(await figures.textContent()).not.toContain('As Telegram reports them now');
    expect(await section.getByRole('link').getAttribute('href')).toBe(link!.shortUrl);
    await section.scrollIntoViewIfNeeded();
    await screenshot(page, 'post-links');
    await checkA11y(page, 'a published post with short links');
    await atPhoneWidth(page, 'post-links-390');
  });

  it('writing help: off until a model is set; refusals by their fields; saved it is on; turned off after confirming', async () => {
    const { page } = olga;
    const ai = async () => (await olga.form.api('GET', '/public/v1/ai/settings')).json<AiSettings>();
    await page.goto('/settings');
    await page.getByRole('link', { name: 'Writing help' }).click();
    await page.waitForURL(/\/settings\/writing-help$/);
    const status = page.getByTestId('ai-status');
    await expect.poll(() => status.textContent()).toContain('nothing is sent anywhere');
    expect(await page.getByText('Nothing is sent anywhere until a model is set here').count()).toBe(1);
    // the local servers' buttons fill the base URL (and a model for Ollama)
    await page.getByRole('button', { name: /^Use Ollama/ }).click();
    expect(await page.getByLabel('Base URL').inputValue()).toBe('http://127.0.0.1:11434/v1');
    expect(await page.getByLabel('Model', { exact: true }).inputValue()).toBe('llama3.2');
    await screenshot(page, 'settings-writing-help-off');
    await checkA11y(page, 'Settings → Writing help, off');
    await atPhoneWidth(page, 'settings-writing-help-off-390');

    // the simulator as the model: a model it does not list is refused by the model field
    const baseUrl = page.getByLabel('Base URL');
    const modelField = page.getByLabel('Model', { exact: true });
    const keyField = page.getByLabel('API key (optional)');
    await baseUrl.fill(model.baseUrl);
    await modelField.fill('llama9');
    await keyField.fill('sk-local-model');
    await page.getByRole('button', { name: 'Turn on writing help' }).click();
    const modelError = page.locator('.field').filter({ has: modelField }).getByRole('alert');
    await expect.poll(() => modelError.textContent()).toContain('does not offer "llama9"');
    expect(await modelField.getAttribute('aria-invalid')).toBe('true');
    expect(((await modelField.getAttribute('aria-describedby')) ?? '').split(' ')).toContain(await modelError.getAttribute('id'));
    // without the key, the endpoint's refusal is shown by the key field
    await modelField.fill('llama3.2');
    await keyField.fill('');
    await page.getByRole('button', { name: 'Turn on writing help' }).click();
    const keyError = page.locator('.field').filter({ has: keyField }).getByRole('alert');
    await expect.poll(() => keyError.textContent()).toContain('refused the key');
    await checkA11y(page, 'Settings → Writing help, a refused key');
    expect((await ai()).configured).toBe(false);

    await keyField.fill('sk-local-model');
    await page.getByRole('button', { name: 'Turn on writing help' }).click();
    await expect.poll(() => status.textContent()).toContain('On');
    expect(await status.textContent()).toContain('llama3.2');
    expect(await ai()).toMatchObject({ configured: true, baseUrl: model.baseUrl, model: 'llama3.2', hasApiKey: true });
    await page.reload();
    await expect.poll(() => page.getByTestId('ai-status').textContent()).toContain('On');
    expect(await page.getByText('A key is saved').count()).toBe(1);
    expect(await page.content()).not.toContain('sk-local-model');
    await screenshot(page, 'settings-writing-help-on');
    await checkA11y(page, 'Settings → Writing help, on');
    await atPhoneWidth(page, 'settings-writing-help-on-390');

    // turned off after confirming: the service forgets the endpoint
    await page.getByRole('button', { name: 'Turn off writing help' }).click();
    const dialog = page.getByRole('dialog', { name: 'Turn off writing help?' });
    await dialog.getByRole('button', { name: 'Turn off' }).click();
    await expect.poll(() => page.getByTestId('ai-status').textContent()).toContain('Off');
    expect(await ai()).toMatchObject({ configured: false, baseUrl: null, hasApiKey: false });
    expect(await page.getByLabel('Base URL').inputValue()).toBe('');
  });
});
