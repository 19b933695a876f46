import type { Locator } from 'playwright-core';
import sharp from 'sharp';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMastodonSimulator, type MastodonSimulator } from '../../src/platforms/mastodon/mastodon.simulator.js';
import { screenshot, startWebHarness, type SignedIn, type WebHarness } from './harness.js';

/**
 * Issue 25 item 1: one server, two addresses. PUBLIC_URL is left unset (a fresh install: it
 * defaults to http://localhost:PORT) and the person opens the app at http://127.0.0.1:PORT, the
 * address the service prints. Pictures (whose URLs name PUBLIC_URL, the address platforms fetch
 * them from) show in the library and the composer, an OAuth connect in a popup finishes, and no
 * page logs an error: no CSP violation, no failed load (the icon included), no script error.
 */
describe('the app opened at 127.0.0.1 while PUBLIC_URL defaults to localhost', () => {
  let h: WebHarness;
  let mastodon: MastodonSimulator;
  let person: SignedIn;
  let dir: string;
  let photo: string;
  const problems: string[] = [];

  /** Whether an <img> has loaded a picture (a blocked or failed load has naturalWidth 0). */
  const loaded = (img: Locator) =>
    img.evaluate((el) => {
      // (the test's code has no DOM types: the element as far as this needs it)
      const picture = el as unknown as { complete: boolean; naturalWidth: number };
      return picture.complete && picture.naturalWidth > 0;
    });

  beforeAll(async () => {
    mastodon = await startMastodonSimulator();
    mastodon.addAccount({ username: 'alice', display_name: 'Alice Example' });
    h = await startWebHarness({ defaultPublicUrl: true, env: { ALLOW_PRIVATE_TARGETS: 'true' } });
    person = await h.signUp({ name: 'Greta', organization: 'Acme' });
    // Every page of the context (popups included) reports CSP violations as console errors.
    await person.context.addInitScript(
      "document.addEventListener('securitypolicyviolation', (e) => console.error('securitypolicyviolation: ' + e.violatedDirective + ' blocked ' + e.blockedURI));",
    );
    // the service's own loads (at either address); the simulator's avatar URL names a host that does not exist
    const port = new URL(h.origin).port;
    const ours = (url: string) => url === '' || url.startsWith(h.origin) || url.startsWith(`http://localhost:${port}`);
    const watch = (p: typeof person.page) => {
      p.on('console', (m) => {
        if (m.type() === 'error' && ours(m.location().url)) problems.push(`${p.url()}: ${m.text()} (${m.location().url})`);
      });
      p.on('pageerror', (e) => problems.push(`${p.url()}: ${e.message}`));
    };
    watch(person.page);
    person.context.on('page', watch);
    dir = mkdtempSync(join(tmpdir(), 'tidings-addresses-'));
    photo = join(dir, 'harbour.png');
    await sharp({ create: { width: 640, height: 400, channels: 3, background: { r: 40, g: 110, b: 190 } } })
      .composite([{ input: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="640" height="400"><circle cx="320" cy="200" r="120" fill="#f5c542"/></svg>') }])
      .png()
      .toFile(photo);
  });
  afterAll(async () => {
    await h?.close();
    await mastodon?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('the set-up is the one a new user has: the page at 127.0.0.1, PUBLIC_URL at localhost', () => {
    const port = new URL(h.origin).port;
    expect(h.origin).toBe(`http://127.0.0.1:${port}`);
    expect(h.t.deps.config.publicUrl).toBe(`http://localhost:${port}`);
  });

  it('connects Mastodon through OAuth in a popup: the callback (at PUBLIC_URL) hands over to 127.0.0.1, the popup reports back and closes', async () => {
    const { page } = person;
    const dialog = page.getByRole('dialog');
    await page.goto('/channels');
    await page.getByRole('button', { name: 'Connect a channel' }).first().click();
    await dialog.getByRole('button', { name: 'Mastodon', exact: true }).click();
    await dialog.getByLabel(/Mastodon server/).fill(mastodon.origin);
    const popupOpened = page.waitForEvent('popup');
    const callbacks: string[] = [];
    person.context.on('request', (r) => {
      if (r.url().includes('/integrations/social/mastodon/callback')) callbacks.push(new URL(r.url()).origin);
    });
    await dialog.getByRole('button', { name: 'Continue' }).click();
    const popup = await popupOpened;
    await popup.waitForEvent('close', { timeout: 20_000 });
    await dialog.getByText('Connected: Alice Example').waitFor();
    expect(await dialog.getByText(/Waiting/).count()).toBe(0);
    // the platform went back to PUBLIC_URL's callback, which sent the browser on to the app's own origin
    expect(callbacks).toEqual([h.t.deps.config.publicUrl, h.origin]);
    await screenshot(page, 'addresses-connected');
    await dialog.getByRole('button', { name: 'Done' }).click();
    await page.locator('li.ch-row').filter({ hasText: 'Alice Example' }).waitFor();
    const channels = (await person.form.api('GET', '/public/v1/integrations')).json<{ identifier: string; name: string }[]>();
    expect(channels).toEqual([expect.objectContaining({ identifier: 'mastodon', name: 'Alice Example' })]);
  });

  it('an uploaded picture shows in the media library, although its URL names PUBLIC_URL (another origin)', async () => {
    const { page } = person;
    await page.goto('/library');
    await page.getByLabel('Choose files to upload').setInputFiles(photo);
    const img = page.getByRole('list', { name: 'Media files' }).locator('img').first();
    await img.waitFor({ timeout: 20_000 });
    const src = (await img.getAttribute('src'))!;
    expect(new URL(src).origin).toBe(h.t.deps.config.publicUrl);
    await expect.poll(() => loaded(img), { timeout: 10_000 }).toBe(true);
    await screenshot(page, 'addresses-library');
  });

  it('the same picture shows in the composer, picked from the library', async () => {
    const { page } = person;
    await page.goto('/calendar');
    await page.getByRole('button', { name: 'New post' }).click();
    const dialog = page.getByRole('dialog', { name: 'New post' });
    await dialog.getByRole('button', { name: /Alice Example/ }).first().click();
    await dialog.getByLabel('Post text', { exact: true }).fill('Morning at the harbour');
    await dialog.getByRole('button', { name: 'Media library' }).first().click();
    const library = page.getByRole('dialog', { name: 'Add from the media library' });
    const choice = library.getByRole('button', { name: /harbour\.png/ });
    await expect.poll(() => loaded(choice.locator('img')), { timeout: 10_000 }).toBe(true);
    await choice.click();
    await library.getByRole('button', { name: 'Add 1 to the post' }).click();
    await library.waitFor({ state: 'detached' });
    const thumb = dialog.locator('.compose-thumb img').first();
    await thumb.waitFor();
    await expect.poll(() => loaded(thumb), { timeout: 10_000 }).toBe(true);
    await screenshot(page, 'addresses-composer');
  });

  it('no page logged an error: no CSP violation, no failed load, no script error', () => {
    expect(problems).toEqual([]);
  });
});
