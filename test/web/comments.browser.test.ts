import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp } from '../browser.js';
import { createChannel } from '../factories.js';
import { screenshot, startWebHarness, type SignedIn, type WebHarness } from './harness.js';
import { measureLayout } from './layout.js';

/**
 * Comments on posts (issue 31) in Chromium: the owner comments on a post mentioning a second
 * member (picked after @) and resolves it; the member, in their own browser at phone width, finds
 * the mention in their notifications and the thread on the post.
 */
describe('comments in Chromium', () => {
  let h: WebHarness;
  let olga: SignedIn;
  let postId: string;

  beforeAll(async () => {
    h = await startWebHarness();
    olga = await h.signUp({ name: 'Olga', organization: 'Acme' });
    const channel = await createChannel(h.t, { id: olga.organizationId, name: 'Acme', apiKey: '' }, 'telegram', { name: 'Acme News' });
    const made = await olga.form.api('POST', '/public/v1/posts', {
      type: 'draft',
      date: '2031-07-01T09:00:00Z',
      shortLink: false,
      tags: [],
      posts: [{ integration: { id: channel.id }, value: [{ content: 'Launch day!', image: [] }], settings: {} }],
    });
    postId = made.json<{ postId: string }[]>()[0]!.postId;
  });
  afterAll(async () => h?.close());

  it('the owner mentions a member and resolves; the member sees the notification and the thread at 390 px', async () => {
    const { link } = (await olga.form.api('POST', '/public/v1/invitations', { email: 'mia@example.test', role: 'member' })).json<{ link: string }>();
    const miaForm = await signUp(h.t.app, { email: 'mia@example.test', name: 'Mia', invite: link.split('/').at(-1)! });

    const { page } = olga;
    await page.goto(`/posts/${postId}`);
    const panel = page.locator('section.comments-panel');
    await panel.getByRole('combobox', { name: 'Write a comment' }).pressSequentially('Can you check the date @Mi');
    await panel.getByRole('option', { name: '@Mia' }).click();
    await expect.poll(() => panel.getByText('Notifies Mia').count()).toBe(1);
    await panel.getByRole('button', { name: 'Comment' }).click();
    const comment = panel.getByRole('listitem', { name: 'Comment by Olga' });
    await expect.poll(() => comment.textContent()).toContain('Can you check the date @Mia');
    await comment.getByRole('button', { name: 'Resolve' }).click();
    await expect.poll(() => comment.textContent()).toContain('Resolved by Olga');

    const context = await h.chromium.newContext({ baseURL: h.origin, viewport: { width: 390, height: 844 }, timezoneId: 'UTC', locale: 'en-GB' });
    try {
      await context.addCookies([...miaForm.cookies].map(([name, value]) => ({ name, value, url: h.origin })));
      const mia = await context.newPage();
      await mia.goto('/notifications');
      const note = mia.getByText('Olga mentioned you in a comment: “Can you check the date @Mia”');
      await expect.poll(() => note.count()).toBe(1);
      await mia.getByRole('listitem').filter({ hasText: 'Olga mentioned you' }).getByRole('link', { name: 'Open' }).click();
      await expect.poll(() => mia.url()).toContain(`/posts/${postId}`);
      const thread = mia.locator('section.comments-panel');
      await expect.poll(() => thread.getByRole('listitem', { name: 'Comment by Olga' }).textContent()).toContain('Resolved by Olga');
      await thread.scrollIntoViewIfNeeded();
      await screenshot(mia, 'comments-390');
      const m = await measureLayout(mia);
      expect(m.scrollWidth, m.wide.join('; ')).toBeLessThanOrEqual(m.clientWidth);
      expect(m.small.filter((s) => /comment|Resolve|Reopen|Delete/i.test(s))).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
