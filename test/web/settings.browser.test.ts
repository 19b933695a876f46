import { readFile } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { signPayload } from '../../src/engines/webhooks/send.js';
import { screenshot, startWebHarness, type SignedIn, type WebHarness } from './harness.js';

const FIXTURES = new URL('../fixtures/media/', import.meta.url);

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/** A webhook receiver on loopback: answers 200 and keeps what it got. */
async function startReceiver(): Promise<{ url: string; received: Received[]; close: () => Promise<void> }> {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200, { 'content-type': 'text/plain' }).end('thanks, got it');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/hooks/tidings`, received, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

// pages load lazily on a busy 2-core machine: polls wait up to 15 s instead of the default 1 s
vi.setConfig({ expect: { poll: { timeout: 15_000, interval: 100 } } });

describe('the calendar app in Chromium: settings and the media library', () => {
  let h: WebHarness;
  let olga: SignedIn;
  beforeAll(async () => {
    // the webhook receiver of this test is on loopback, which the service refuses unless told
    h = await startWebHarness({ env: { ALLOW_PRIVATE_TARGETS: 'true' } });
    olga = await h.signUp({ name: 'Olga', organization: 'Acme' });
  });
  afterAll(async () => h?.close());

  it('profile: the display time zone chosen from a searchable list is saved (GET /me) and the app shows times in it', async () => {
    const { page, form } = olga;
    await page.goto('/settings');
    await page.waitForURL(/\/settings\/profile$/);
    await page.getByLabel('Search time zones').fill('tokyo');
    await page.getByLabel('Display time zone').selectOption('Asia/Tokyo');
    await expect.poll(() => page.getByTestId('tz-now').textContent()).toContain('Asia/Tokyo');
    await page.getByRole('button', { name: 'Save profile' }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Saved' }).textContent()).toContain('Tokyo');
    expect((await form.api('GET', '/public/v1/me')).json<{ user: { timezone: string | null } }>().user.timezone).toBe('Asia/Tokyo');
    // "the browser's" is null again, then back to Tokyo for the next tests
    await page.getByLabel('Display time zone').selectOption('');
    await page.getByRole('button', { name: 'Save profile' }).click();
    await expect.poll(async () => (await form.api('GET', '/public/v1/me')).json<{ user: { timezone: string | null } }>().user.timezone).toBeNull();
    await page.getByLabel('Display time zone').selectOption('Asia/Tokyo');
    await page.getByRole('button', { name: 'Save profile' }).click();
    await expect.poll(async () => (await form.api('GET', '/public/v1/me')).json<{ user: { timezone: string | null } }>().user.timezone).toBe('Asia/Tokyo');
  });

  it('API keys: created in the app, shown once, it works on the public API; revoked, it gets 401', async () => {
    const { page } = olga;
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.waitForURL(/\/settings\/api-keys$/);
    await page.getByLabel('Key name').fill('Nightly import');
    await page.getByRole('button', { name: 'Create key' }).click();
    const shown = page.getByLabel('API key', { exact: true });
    await expect.poll(() => shown.inputValue()).not.toBe('');
    const apiKey = await shown.inputValue();
    const row = page.getByRole('row').filter({ hasText: 'Nightly import' });
    await expect.poll(() => row.count()).toBe(1);
    // the key's creation time is shown in the chosen zone (Tokyo), the UTC truth on hover
    const created = row.locator('time').first();
    const iso = (await created.getAttribute('datetime'))!;
    const tokyoHour = new Intl.DateTimeFormat('en-GB', { timeZone: 'Asia/Tokyo', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(new Date(iso));
    expect(await created.textContent()).toContain(tokyoHour);
    expect(await created.getAttribute('title')).toMatch(/UTC$/);
    await screenshot(page, 'settings-api-keys');

    const call = (key: string) => h.t.app.inject({ method: 'GET', url: '/public/v1/integrations', headers: { authorization: key } });
    expect((await call(apiKey)).statusCode).toBe(200);

    // once dismissed, the key is gone from the page for good
    await page.getByRole('button', { name: 'Done, I have saved it' }).click();
    expect(await page.getByLabel('API key', { exact: true }).count()).toBe(0);
    expect(await page.content()).not.toContain(apiKey);

    await page.getByRole('button', { name: 'Revoke Nightly import' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke key' }).click();
    await expect.poll(() => page.getByRole('row').filter({ hasText: 'Nightly import' }).count()).toBe(0);
    expect((await call(apiKey)).statusCode).toBe(401);
  });

  it('members: an invitation link is shown once, the invitation is listed and can be revoked', async () => {
    const { page } = olga;
    await page.getByRole('link', { name: 'Members' }).click();
    await expect.poll(() => page.getByRole('row').filter({ hasText: 'person1@example.test' }).textContent()).toContain('you');
    await page.getByLabel('Email (optional)').fill('newbie@example.test');
    await page.getByLabel('Role', { exact: true }).selectOption('admin');
    await page.getByRole('button', { name: 'Create invitation' }).click();
    const link = page.getByLabel('Invitation link');
    await expect.poll(() => link.inputValue()).toMatch(new RegExp(`^${h.origin}/account/invite/`));
    const invited = page.getByRole('row').filter({ hasText: 'newbie@example.test' });
    await expect.poll(() => invited.textContent()).toContain('Admin');
    // the link opens the server's invitation page
    const url = await link.inputValue();
    expect((await h.t.app.inject({ method: 'GET', url: new URL(url).pathname })).statusCode).toBe(200);
    await page.getByRole('button', { name: 'Done, I have saved it' }).click();
    await page.getByRole('button', { name: 'Revoke the invitation for newbie@example.test' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke invitation' }).click();
    await expect.poll(() => page.getByRole('row').filter({ hasText: 'newbie@example.test' }).count()).toBe(0);
  });

  it('webhooks: created with its secret shown once, a test event reaches the receiver signed, the log shows the 2xx, resend, delete', async () => {
    const { page, form } = olga;
    const receiver = await startReceiver();
    try {
      await page.getByRole('link', { name: 'Webhooks' }).click();
      await page.getByRole('button', { name: 'New webhook' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByLabel('Name').fill('CRM sync');
      // the API's refusal of the URL is shown at the URL field
      await dialog.getByLabel('URL').fill('ftp://example.com/hook');
      await dialog.getByRole('button', { name: 'Create webhook' }).click();
      await expect.poll(() => dialog.getByRole('alert').textContent()).toContain('only http and https');
      expect(await dialog.getByLabel('URL').getAttribute('aria-invalid')).toBe('true');
      await dialog.getByLabel('URL').fill(receiver.url);
      await dialog.getByRole('checkbox', { name: /post\.published/ }).check();
      await dialog.getByRole('checkbox', { name: /post\.failed/ }).check();
      await dialog.getByRole('button', { name: 'Create webhook' }).click();

      const secretBox = page.getByRole('textbox', { name: 'Signing secret', exact: true });
      await expect.poll(() => secretBox.inputValue()).toMatch(/^whsec_/);
      const secret = await secretBox.inputValue();
      // the list (the API) never carries it
      const listed = (await form.api('GET', '/public/v1/webhooks')).json<{ id: string; events: string[] }[]>();
      expect(listed).toHaveLength(1);
      expect(listed[0]!.events.sort()).toEqual(['post.failed', 'post.published']);
      expect(JSON.stringify(listed)).not.toContain(secret);
      await page.getByRole('button', { name: 'Done, I have saved it' }).click();
      expect(await page.getByRole('textbox', { name: 'Signing secret', exact: true }).count()).toBe(0);

      await page.getByRole('button', { name: 'Send a test event to CRM sync' }).click();
      await expect.poll(() => receiver.received.length, { timeout: 20_000 }).toBeGreaterThanOrEqual(1);
      const got = receiver.received[0]!;
      const id = String(got.headers['webhook-id']);
      const timestamp = Number(got.headers['webhook-timestamp']);
      expect(JSON.parse(got.body)).toMatchObject({ type: 'webhook.test' });
      expect(String(got.headers['webhook-signature']).split(' ')).toContain(`v1,${signPayload(secret, id, timestamp, got.body)}`);

      // the log (refreshing by itself while the delivery waits) shows the 2xx attempt
      const attempt = page.locator(`tr[data-delivery="${id}"]`);
      await expect.poll(() => attempt.textContent(), { timeout: 20_000 }).toContain('Delivered');
      const text = (await attempt.textContent())!;
      expect(text).toContain('webhook.test');
      expect(text).toContain('200');
      expect(text).toContain('thanks, got it');
      await screenshot(page, 'settings-webhooks');

      // resend: the same webhook-id again
      await attempt.getByRole('button', { name: /^Resend/ }).click();
      await expect.poll(() => receiver.received.length, { timeout: 20_000 }).toBeGreaterThanOrEqual(2);
      expect(receiver.received[1]!.headers['webhook-id']).toBe(id);
      await expect.poll(() => page.locator(`tr[data-delivery="${id}"]`).count(), { timeout: 20_000 }).toBe(2);

      await page.getByRole('button', { name: 'Delete CRM sync' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Delete webhook' }).click();
      await expect.poll(() => page.getByText('No webhooks yet').count()).toBe(1);
      expect((await form.api('GET', '/public/v1/webhooks')).json()).toEqual([]);
    } finally {
      await receiver.close();
    }
  });

  it('media library: several files uploaded with progress, a refused one named, the items listed; delete', async () => {
    const { page, form } = olga;
    await page.getByRole('link', { name: 'Media library' }).click();
    await page.waitForURL(/\/library$/);
    await expect.poll(() => page.getByText('No media yet').count()).toBe(1);
    const files = ['photo-64x48.jpg', 'photo-48x64.png', 'photo-80x60.webp', 'h264-aac-faststart.mp4'];
    await page.getByLabel('Choose files to upload').setInputFiles([
      ...(await Promise.all(files.map(async (name) => ({ name, mimeType: name.endsWith('.mp4') ? 'video/mp4' : `image/${name.split('.')[1]!.replace('jpg', 'jpeg')}`, buffer: await readFile(new URL(name, FIXTURES)) })))),
      { name: 'notes.png', mimeType: 'image/png', buffer: Buffer.from('not a picture at all, just words') },
    ]);
    for (const name of files) {
      const bar = page.getByRole('progressbar', { name: `Upload of ${name}` });
      await expect.poll(() => bar.evaluate((el) => (el as unknown as { value: number }).value), { timeout: 20_000 }).toBe(100);
      await expect.poll(() => page.getByRole('listitem').filter({ has: bar }).textContent()).toContain('Uploaded');
    }
    await expect.poll(() => page.getByRole('alert').filter({ hasText: 'notes.png' }).count()).toBe(1);

    const grid = page.getByRole('list', { name: 'Media files' });
    await expect.poll(() => grid.getByRole('listitem').count()).toBe(4);
    await expect.poll(() => grid.getByRole('listitem').filter({ hasText: 'photo-64x48.jpg' }).textContent()).toContain('64×48');
    await expect.poll(() => grid.getByRole('listitem').filter({ hasText: 'h264-aac-faststart.mp4' }).textContent()).toContain('Video');
    // the images load from the stored files
    await expect.poll(() => grid.locator('img').evaluateAll((imgs) => (imgs as unknown as { complete: boolean; naturalWidth: number }[]).every((i) => i.complete && i.naturalWidth > 0))).toBe(true);
    await screenshot(page, 'media-library');

    await page.getByRole('button', { name: 'Delete photo-64x48.jpg' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete file' }).click();
    await expect.poll(() => grid.getByRole('listitem').count()).toBe(3);
    const left = (await form.api('GET', '/public/v1/media')).json<{ media: { originalName: string | null }[] }>();
    expect(left.media.map((m) => m.originalName)).not.toContain('photo-64x48.jpg');
  });
});
