import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp } from '../browser.js';
import { createChannel } from '../factories.js';
import { screenshot, startWebHarness, type SignedIn, type WebHarness } from './harness.js';
import { addOrganisationRule, checkAtPhoneWidth } from './layout.js';

interface OpenGroup {
  group: string;
  status: string;
  posts: { id: string }[];
}

/**
 * Approvals (issue 31) in Chromium: the owner makes an organisation rule in Settings; a contributor
 * writes a post, whose composer offers only "Submit for approval"; the owner asks for changes from
 * the Approvals page; the contributor edits and submits again; the owner approves and the post is
 * queued. The queue and the post page are looked at on a desktop and at 390 px.
 */
describe('approvals in Chromium', () => {
  let h: WebHarness;
  let olga: SignedIn;

  beforeAll(async () => {
    h = await startWebHarness();
    olga = await h.signUp({ name: 'Olga', organization: 'Acme' });
    await createChannel(h.t, { id: olga.organizationId, name: 'Acme', apiKey: '' }, 'telegram', { name: 'Acme News' });
  });
  afterAll(async () => h?.close());

  async function openGroups(): Promise<OpenGroup[]> {
    return (await olga.form.api('GET', '/public/v1/approvals')).json<{ groups: OpenGroup[] }>().groups;
  }

  const atPhoneWidth = (page: Page, name: string) => checkAtPhoneWidth(page, name, /Approve|Request changes|Submit for approval|Open|New rule|Edit|Delete/i);

  it('a rule, a contributor’s submission, changes asked, resubmitted, approved and queued', async () => {
    const { page } = olga;
    // the owner makes a rule for the whole organisation
    await addOrganisationRule(page, 'Client sign-off');
    await screenshot(page, 'approvals-rules');
    await atPhoneWidth(page, 'approvals-rules-390');

    // a contributor joins
    const { link } = (await olga.form.api('POST', '/public/v1/invitations', { email: 'carl@example.test', role: 'contributor' })).json<{ link: string }>();
    const carlForm = await signUp(h.t.app, { email: 'carl@example.test', name: 'Carl', invite: link.split('/').at(-1)! });
    const context = await h.chromium.newContext({ baseURL: h.origin, viewport: { width: 1360, height: 860 }, timezoneId: 'UTC', locale: 'en-GB' });
    try {
      await context.addCookies([...carlForm.cookies].map(([name, value]) => ({ name, value, url: h.origin })));
      const carl = await context.newPage();

      // Carl writes a post: the composer offers to submit it, not to schedule it
      await carl.goto('/calendar');
      await carl.getByRole('button', { name: 'New post' }).click();
      const compose = carl.getByRole('dialog', { name: 'New post' });
      await compose.getByRole('button', { name: /Acme News/ }).click();
      await compose.getByLabel('Post text', { exact: true }).fill('Launch day: doors open at noon');
      const submit = compose.getByRole('button', { name: 'Submit for approval' });
      await expect.poll(() => submit.count()).toBe(1);
      expect(await compose.getByRole('button', { name: 'Post now' }).count()).toBe(0);
      await screenshot(carl, 'approvals-compose');
      await submit.click();
      await expect.poll(() => carl.getByText('Sent for approval').count()).toBe(1);
      const [pending] = await openGroups();
      expect(pending).toMatchObject({ status: 'pending_approval' });
      const postId = pending!.posts[0]!.id;
      await carl.goto(`/posts/${postId}`);
      await expect.poll(() => carl.getByRole('region', { name: 'Approval' }).textContent()).toContain('Pending approval');
      // it goes on through the approval bar, not Schedule
      expect(await carl.getByRole('button', { name: 'Schedule', exact: true }).count()).toBe(0);
      await atPhoneWidth(carl, 'approvals-post-pending-390');

      // the calendar's review mode shows it, marked
      await page.goto('/calendar?view=week');
      await page.getByRole('checkbox', { name: 'Review' }).check();
      await expect.poll(() => page.url()).toContain('review=1');
      await expect.poll(() => page.locator('.post-event.post-review').count()).toBe(1);
      expect(await page.locator('.post-event.post-review').textContent()).toContain('Pending approval');
      await screenshot(page, 'approvals-calendar-review');

      // the owner asks for changes from the queue
      await page.goto('/approvals');
      const card = page.getByRole('listitem', { name: 'Pending approval: Acme News' });
      await expect.poll(() => card.textContent()).toContain('Launch day: doors open at noon');
      expect(await card.textContent()).toContain('Carl');
      await screenshot(page, 'approvals-queue');
      await atPhoneWidth(page, 'approvals-queue-390');
      await card.getByRole('button', { name: 'Request changes to the post on Acme News' }).click();
      const ask = page.getByRole('dialog', { name: 'Request changes' });
      await ask.getByLabel('What needs changing').fill('Say which day, please');
      await ask.getByRole('button', { name: 'Request changes' }).click();
      await expect.poll(() => page.getByText('Changes requested on the post on Acme News.').count()).toBe(1);
      await expect.poll(async () => (await openGroups())[0]?.status).toBe('changes_requested');

      // Carl sees why on the post, edits it and submits again
      await carl.goto(`/posts/${postId}`);
      const bar = carl.getByRole('region', { name: 'Approval' });
      await expect.poll(() => bar.textContent()).toContain('Changes requested');
      await expect.poll(() => carl.locator('section.comments-panel').textContent()).toContain('Say which day, please');
      await carl.getByRole('button', { name: 'Edit' }).click();
      const edit = carl.getByRole('dialog', { name: 'Edit post' });
      await edit.getByLabel('Post text', { exact: true }).fill('Launch day on Friday: doors open at noon');
      await edit.getByRole('button', { name: 'Submit for approval' }).click();
      await expect.poll(() => carl.getByText('Sent for approval').count()).toBe(1);
      await expect.poll(async () => (await openGroups())[0]?.status).toBe('pending_approval');

      // the owner approves: the post is queued for its time
      await page.goto('/approvals');
      const again = page.getByRole('listitem', { name: 'Pending approval: Acme News' });
      await expect.poll(() => again.textContent()).toContain('Launch day on Friday');
      await again.getByRole('button', { name: 'Approve the post on Acme News' }).click();
      await expect.poll(() => page.getByText('Nothing waiting for approval').count()).toBe(1);

      await page.goto(`/posts/${postId}`);
      await expect.poll(() => page.locator('.post-sub').textContent()).toContain('Queued');
      await expect.poll(() => page.getByRole('region', { name: 'Approval' }).textContent()).toContain('Approved by Olga');
      await screenshot(page, 'approvals-post-approved');
      await carl.goto(`/posts/${postId}`);
      await expect.poll(() => carl.getByRole('region', { name: 'Approval' }).textContent()).toContain('Approved by Olga');
      await atPhoneWidth(carl, 'approvals-post-390');
    } finally {
      await context.close();
    }
  });
});
