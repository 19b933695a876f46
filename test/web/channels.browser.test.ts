import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMastodonSimulator, type MastodonSimulator } from '../../src/platforms/mastodon/mastodon.simulator.js';
import { BLUESKY_ACCOUNT, screenshot, startWebHarness, TELEGRAM_BOT, type SignedIn, type WebHarness } from './harness.js';

interface Channel {
  id: string;
  name: string;
  identifier: string;
  profile: string | null;
  disabled: boolean;
  customer?: { id: string; name: string };
  postingTimes: { time: number }[];
}

/** Europe/Berlin's offset from UTC today, in minutes (+60 in winter, +120 in summer). */
function berlinOffsetMinutes(): number {
  const name = new Intl.DateTimeFormat('en-US', { timeZone: 'Europe/Berlin', timeZoneName: 'shortOffset' }).formatToParts(new Date()).find((p) => p.type === 'timeZoneName')!.value;
  const m = /GMT([+-]\d+)(?::(\d+))?/.exec(name)!;
  return Number(m[1]) * 60 + Math.sign(Number(m[1])) * Number(m[2] ?? 0);
}

describe('the channels page in Chromium, against the real service and the platforms’ simulators', () => {
  let h: WebHarness;
  let mastodon: MastodonSimulator;
  let person: SignedIn;
  let page: Page;
  const problems: string[] = [];

  const channels = async () => (await person.form.api('GET', '/public/v1/integrations')).json<Channel[]>();
  const row = (name: string) => page.locator('li.ch-row').filter({ has: page.locator('.ch-name', { hasText: new RegExp(`^${name}$`) }) });
  const dialog = () => page.getByRole('dialog');
  async function menu(channelName: string, item: string) {
    await page.getByRole('button', { name: `Manage ${channelName}` }).click();
    await page.getByRole('menuitem', { name: item }).click();
  }

  beforeAll(async () => {
    // The Mastodon instance is the simulator itself (a private address: allowed for this test).
    mastodon = await startMastodonSimulator();
    mastodon.addAccount({ username: 'alice', display_name: 'Alice Example' });
    h = await startWebHarness({ env: { ALLOW_PRIVATE_TARGETS: 'true' } });
    person = await h.signUp({ name: 'Greta', organization: 'Acme', timezone: 'Europe/Berlin' });
    page = person.page;
    // Anything the CSP refuses, or any script error, fails the run at the end.
    page.on('console', (m) => {
      if (m.type() === 'error' && /Content Security Policy|Refused to/i.test(m.text())) problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(e.message));
  });
  afterAll(async () => {
    await h?.close();
    await mastodon?.close();
  });

  it('connects Telegram through the form generated from its schema: a wrong bot token is named on its field, the right one lists the channel', async () => {
    await page.goto('/channels');
    await page.getByText('No channels yet').waitFor();
    await page.getByRole('button', { name: 'Connect a channel' }).first().click();
    await screenshot(page, 'channels-connect');
    await dialog().getByRole('button', { name: 'Telegram', exact: true }).click();

    const token = dialog().getByLabel('Bot token');
    await token.fill('999999:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
    await dialog().getByLabel('Chat ID').fill('@acmenews');
    await dialog().getByRole('button', { name: 'Connect', exact: true }).click();
    const error = dialog().getByRole('alert').filter({ hasText: 'Telegram refused the bot token' });
    await error.waitFor();
    // the message is tied to the field it names
    const errorId = await error.getAttribute('id');
    expect(await token.getAttribute('aria-describedby')).toContain(errorId);
    expect(await channels()).toEqual([]);

    await token.fill(TELEGRAM_BOT);
    await dialog().getByRole('button', { name: 'Connect', exact: true }).click();
    await dialog().getByText('Connected: Acme News').waitFor();
    await dialog().getByRole('button', { name: 'Done' }).click();
    await row('Acme News').waitFor();
    const [saved] = await channels();
    expect(saved).toMatchObject({ identifier: 'telegram', name: 'Acme News', disabled: false });
    expect(await row('Acme News').locator('.ch-meta').textContent()).toBe(`Telegram · ${saved!.profile}`);
    expect(await row('Acme News').locator('.badge').textContent()).toBe('Active');
  });

  it('connects Bluesky: a wrong app password gets Bluesky’s refusal on the password field, the right one connects', async () => {
    await page.getByRole('button', { name: 'Connect a channel' }).first().click();
    await dialog().getByLabel('Find a platform').fill('blue');
    await dialog().getByRole('button', { name: 'Bluesky', exact: true }).click();
    // the schema's default is filled in
    expect(await dialog().getByLabel('Service').inputValue()).toBe('https://bsky.social');
    await dialog().getByLabel('Handle').fill(BLUESKY_ACCOUNT.handle);
    const password = dialog().getByLabel('Password');
    await password.fill('wrong-pass-0000');
    await dialog().getByRole('button', { name: 'Connect', exact: true }).click();
    const error = dialog().getByRole('alert').filter({ hasText: 'Bluesky refused the login' });
    await error.waitFor();
    expect(await password.getAttribute('aria-describedby')).toContain(await error.getAttribute('id'));
    await screenshot(page, 'channels-credentials');

    await password.fill(BLUESKY_ACCOUNT.password);
    await dialog().getByRole('button', { name: 'Connect', exact: true }).click();
    await dialog().getByText(`Connected: ${BLUESKY_ACCOUNT.displayName}`).waitFor();
    await dialog().getByRole('button', { name: 'Done' }).click();
    await row(BLUESKY_ACCOUNT.displayName).waitFor();
    expect((await channels()).map((c) => c.identifier).sort()).toEqual(['bluesky', 'telegram']);
  });

  it('connects Mastodon through OAuth in a popup: the instance first, the popup reports back and closes, the channel appears', async () => {
    await page.getByRole('button', { name: 'Connect a channel' }).first().click();
    await dialog().getByRole('button', { name: 'Mastodon', exact: true }).click();
    await dialog().getByLabel('Your Mastodon server').fill(mastodon.origin);
    const popupOpened = page.waitForEvent('popup');
    await dialog().getByRole('button', { name: 'Continue' }).click();
    const popup = await popupOpened;
    // the simulator approves at once and redirects to the service's callback page, which closes itself
    await popup.waitForEvent('close');
    await dialog().getByText('Connected: Alice Example').waitFor();
    await dialog().getByRole('button', { name: 'Done' }).click();
    await row('Alice Example').waitFor();
    const masto = (await channels()).find((c) => c.identifier === 'mastodon');
    expect(masto).toMatchObject({ name: 'Alice Example', profile: expect.stringMatching(/^@alice@/) });
  });

  it('the callback page opened without the app (no opener) keeps its text and links back to the channels', async () => {
    const context = await h.chromium.newContext({ baseURL: h.origin });
    await context.addCookies([...person.form.cookies].map(([name, value]) => ({ name, value, url: h.origin })));
    const tab = await context.newPage();
    const errors: string[] = [];
    tab.on('console', (m) => m.type() === 'error' && /Content Security Policy/i.test(m.text()) && errors.push(m.text()));
    await tab.goto('/integrations/social/mastodon/callback?code=x&state=not-a-state');
    await tab.getByRole('heading', { name: 'Could not connect' }).waitFor();
    expect(await tab.getByText(/expired or was already used/).count()).toBe(1);
    await tab.getByRole('link', { name: 'Back to your channels' }).click();
    await tab.waitForURL(`${h.origin}/channels`);
    await tab.getByRole('heading', { name: 'Channels', level: 1 }).waitFor();
    expect(errors).toEqual([]);
    await context.close();
  });

  it('client groups: create one, put a channel in it, rename it', async () => {
    await page.getByRole('button', { name: 'New client group' }).click();
    await dialog().getByLabel('Group name').fill('Acme Bakery');
    await dialog().getByRole('button', { name: 'Create group' }).click();
    const group = page.getByRole('region', { name: 'Acme Bakery' });
    await group.getByText('No channels in this group yet', { exact: false }).waitFor();

    await menu('Acme News', 'Client group…');
    await dialog().getByLabel('Client group').selectOption({ label: 'Acme Bakery' });
    await dialog().getByRole('button', { name: 'Save' }).click();
    await group.locator('li.ch-row', { hasText: 'Acme News' }).waitFor();
    const groups = (await person.form.api('GET', '/public/v1/groups')).json<{ id: string; name: string }[]>();
    expect(groups).toEqual([expect.objectContaining({ name: 'Acme Bakery' })]);
    expect((await channels()).find((c) => c.name === 'Acme News')!.customer).toEqual({ id: groups[0]!.id, name: 'Acme Bakery' });

    await page.getByRole('button', { name: 'Rename group Acme Bakery' }).click();
    await dialog().getByLabel('Group name').fill('Acme Bakeries');
    await dialog().getByRole('button', { name: 'Save' }).click();
    await page.getByRole('region', { name: 'Acme Bakeries' }).locator('li.ch-row', { hasText: 'Acme News' }).waitFor();
    expect((await person.form.api('GET', '/public/v1/groups')).json<{ name: string }[]>().map((g) => g.name)).toEqual(['Acme Bakeries']);
    expect((await channels()).find((c) => c.name === 'Acme News')!.customer!.name).toBe('Acme Bakeries');
  });

  it('a posting time typed in the person’s zone (Europe/Berlin) is saved as minutes after 00:00 UTC', async () => {
    const before = (await channels()).find((c) => c.name === 'Acme News')!.postingTimes.map((t) => t.time);
    // a new channel starts at 09:00, 12:30 and 17:00 on its connecting person's clock
    expect(before).toEqual([9 * 60, 12 * 60 + 30, 17 * 60].map((m) => m - berlinOffsetMinutes()));
    await menu('Acme News', 'Posting times…');
    await dialog().getByText('Times in Europe/Berlin', { exact: false }).waitFor();
    await dialog().getByLabel('Add a time').fill('10:00');
    await dialog().getByRole('button', { name: 'Add', exact: true }).click();
    await dialog().getByLabel('Add a time').fill('17:30');
    await dialog().getByRole('button', { name: 'Add', exact: true }).click();
    await dialog().getByRole('button', { name: 'Remove 17:30' }).waitFor();
    await screenshot(page, 'channels-times');
    await dialog().getByRole('button', { name: 'Save posting times' }).click();
    await dialog().waitFor({ state: 'detached' });

    const offset = berlinOffsetMinutes();
    const saved = (await channels()).find((c) => c.name === 'Acme News')!.postingTimes.map((t) => t.time);
    // the slots it had and the two added, in UTC minutes
    expect([...saved].sort((a, b) => a - b)).toEqual([...before, 10 * 60 - offset, 17 * 60 + 30 - offset].sort((a, b) => a - b));
    // shown back in Berlin time, with the UTC value on hover
    const times = row('Acme News').getByRole('list', { name: 'Posting times of Acme News' });
    await expect.poll(() => times.getByRole('listitem').allTextContents()).toEqual(expect.arrayContaining(['10:00', '17:30']));
    const utc = `${String(Math.floor((10 * 60 - offset) / 60)).padStart(2, '0')}:00 UTC`;
    expect(await times.locator('time', { hasText: '10:00' }).getAttribute('title')).toMatch(new RegExp(`${utc}$`));

    await page.getByRole('heading', { name: 'Channels', level: 1 }).hover();
    await screenshot(page, 'channels');
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.getByRole('button', { name: 'Manage Acme News' }).click();
    await screenshot(page, 'channels-dark');
    await page.keyboard.press('Escape');
    await page.emulateMedia({ colorScheme: 'light' });
  });

  it('disables and re-enables a channel, then removes one after saying what happens to its posts', async () => {
    await menu(BLUESKY_ACCOUNT.displayName, 'Disable');
    await row(BLUESKY_ACCOUNT.displayName).locator('.badge', { hasText: 'Disabled' }).waitFor();
    await expect.poll(async () => (await channels()).find((c) => c.identifier === 'bluesky')!.disabled).toBe(true);
    await menu(BLUESKY_ACCOUNT.displayName, 'Enable');
    await row(BLUESKY_ACCOUNT.displayName).locator('.badge', { hasText: 'Active' }).waitFor();
    await expect.poll(async () => (await channels()).find((c) => c.identifier === 'bluesky')!.disabled).toBe(false);

    await menu('Alice Example', 'Remove…');
    await dialog().getByText('Posts queued on it will not be published', { exact: false }).waitFor();
    expect(await dialog().textContent()).toContain('channel disconnected');
    await dialog().getByRole('button', { name: 'Remove channel' }).click();
    await row('Alice Example').waitFor({ state: 'detached' });
    expect((await channels()).map((c) => c.identifier).sort()).toEqual(['bluesky', 'telegram']);
    expect(problems).toEqual([]);
  });
});
