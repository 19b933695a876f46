import { DateTime } from 'luxon';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ManualClock } from '../../src/lib/clock.js';
import { signUp } from '../browser.js';
import { realtimeManualClock, releaseDueJobs } from '../factories.js';
import { connectTelegramAndBluesky, screenshot, startWebHarness, type ConnectedChannel, type SignedIn, type WebHarness } from './harness.js';
import { addOrganisationRule, checkAtPhoneWidth } from './layout.js';

interface Entry {
  at: string;
  actor: { kind: string; id: string | null; name: string };
  action: string;
  target: { kind: string; id: string | null; name: string | null };
}

interface PostRow {
  id: string;
  group: string;
  state: string;
  publishDate: string;
  approval: { status: string } | null;
}

/** The actions of the flow, as the activity log records them. */
const FLOW_ACTIONS = ['post.created', 'post.edited', 'post.submitted', 'post.changes_requested', 'post.approved', 'preview_link.created', 'post.published'];

/** Newest-first lines grouped by their time, oldest step first, each step's lines sorted. */
function bySteps(lines: { at: string; line: string }[]): string[][] {
  const steps = new Map<string, string[]>();
  for (const { at, line } of lines) steps.set(at, [...(steps.get(at) ?? []), line]);
  return [...steps.entries()].sort(([a], [b]) => Date.parse(a) - Date.parse(b)).map(([, l]) => l.sort());
}

/**
 * Issue 31's "Done when", end to end in Chromium: the owner makes an organisation approval rule and
 * invites a contributor in Settings; the contributor writes a post in the composer and submits it;
 * the owner asks for changes from the Approvals page; the contributor reads why on the post, edits
 * and submits again; the owner shares it for review with approval allowed; a client in a fresh
 * browser approves it by name; the simulator publishes it at its time (the server's manual clock is
 * moved past it); and the activity log names who did each step.
 */
describe('the teamwork flow in Chromium (issue 31)', () => {
  let h: WebHarness;
  let clock: ManualClock;
  let olga: SignedIn;
  let telegram: ConnectedChannel;
  /** the flow's post (set by the first test) */
  let postId = '';

  beforeAll(async () => {
    // a manual clock at real time, standing still: the post's time is reached by moving it
    clock = realtimeManualClock();
    h = await startWebHarness({ clock });
    olga = await h.signUp({ name: 'Olga', organization: 'Acme', timezone: 'UTC' });
    ({ telegram } = await connectTelegramAndBluesky(olga));
  });
  afterAll(async () => h?.close());

  async function post(id: string): Promise<PostRow> {
    return (await olga.form.api('GET', `/public/v1/posts/${id}`)).json<PostRow>();
  }

  const atPhoneWidth = (page: Page, name: string) => checkAtPhoneWidth(page, name, /Approve|Request changes|Open/i);

  it('rule, invitation, submission, changes asked, resubmitted, shared, approved by a client, published, all in the log', async () => {
    const { page } = olga;

    // 1. the owner makes a rule for the whole organisation …
    await addOrganisationRule(page, 'Client sign-off');
    const rules = (await olga.form.api('GET', '/public/v1/approval-rules')).json<{ rules: { name: string; scope: string }[] }>().rules;
    expect(rules).toEqual([expect.objectContaining({ name: 'Client sign-off', scope: 'organization' })]);
    await screenshot(page, 'teamwork-1-rule');

    // … and invites a contributor in Settings → Members
    await page.goto('/settings/members');
    await page.getByLabel('Email (optional)').fill('carl@example.test');
    await page.getByLabel('Role', { exact: true }).selectOption('contributor');
    await page.getByRole('button', { name: 'Create invitation' }).click();
    const linkField = page.getByLabel('Invitation link');
    await expect.poll(() => linkField.inputValue()).toMatch(new RegExp(`^${h.origin}/account/invite/`));
    const invitation = await linkField.inputValue();
    await expect.poll(() => page.getByRole('row').filter({ hasText: 'carl@example.test' }).textContent()).toContain('Contributor');
    await page.getByRole('button', { name: 'Done, I have saved it' }).click();

    // Carl accepts it (the kit's sign-up form through the invitation: the acceptance page is not what is tested here)
    const carlForm = await signUp(h.t.app, { email: 'carl@example.test', name: 'Carl', invite: invitation.split('/').at(-1)! });
    expect((await carlForm.api('PUT', '/public/v1/me', { timezone: 'UTC' })).statusCode).toBe(200);
    const carlContext = await h.chromium.newContext({ baseURL: h.origin, viewport: { width: 1360, height: 860 }, timezoneId: 'UTC', locale: 'en-GB' });
    const clientContext = await h.chromium.newContext({ viewport: { width: 1360, height: 860 }, timezoneId: 'UTC', locale: 'en-GB' });
    try {
      await carlContext.addCookies([...carlForm.cookies].map(([name, value]) => ({ name, value, url: h.origin })));
      const carl = await carlContext.newPage();

      // 2. Carl writes a post for ten minutes from now (server time) and submits it
      const at = DateTime.fromMillis(clock.now(), { zone: 'UTC' }).plus({ minutes: 10 }).startOf('minute');
      await carl.goto('/calendar');
      await carl.getByRole('button', { name: 'New post' }).click();
      const compose = carl.getByRole('dialog', { name: 'New post' });
      await compose.getByRole('button', { name: new RegExp(telegram.name) }).click();
      await compose.getByLabel('Post text', { exact: true }).fill('Bakery open day: doors open at noon');
      await compose.getByLabel('Date').fill(at.toISODate()!);
      await compose.getByLabel('Time').fill(at.toFormat('HH:mm'));
      const submit = compose.getByRole('button', { name: 'Submit for approval' });
      await expect.poll(() => submit.count()).toBe(1);
      expect(await compose.getByRole('button', { name: 'Post now' }).count()).toBe(0);
      await screenshot(carl, 'teamwork-2-compose');
      await submit.click();
      await expect.poll(() => carl.getByText('Sent for approval').count()).toBe(1);
      const open = (await olga.form.api('GET', '/public/v1/approvals')).json<{ groups: { group: string; status: string; publishDate: string; posts: { id: string }[] }[] }>().groups;
      expect(open).toEqual([expect.objectContaining({ status: 'pending_approval', publishDate: at.toUTC().toISO() })]);
      postId = open[0]!.posts[0]!.id;
      const group = open[0]!.group;
      expect(await post(postId)).toMatchObject({ state: 'DRAFT', approval: { status: 'pending_approval' } });
      clock.advance(1000);

      // 3. the owner asks for changes from the Approvals page
      await page.goto('/approvals');
      const card = page.getByRole('listitem', { name: `Pending approval: ${telegram.name}` });
      await expect.poll(() => card.textContent()).toContain('Bakery open day: doors open at noon');
      expect(await card.textContent()).toContain('Carl');
      await screenshot(page, 'teamwork-3-approvals');
      await atPhoneWidth(page, 'teamwork-3-approvals-390');
      await card.getByRole('button', { name: `Request changes to the post on ${telegram.name}` }).click();
      const ask = page.getByRole('dialog', { name: 'Request changes' });
      await ask.getByLabel('What needs changing').fill('Please say which day');
      await ask.getByRole('button', { name: 'Request changes' }).click();
      await expect.poll(() => page.getByText(`Changes requested on the post on ${telegram.name}.`).count()).toBe(1);
      await expect.poll(async () => (await post(postId)).approval?.status).toBe('changes_requested');
      clock.advance(1000);

      // 4. Carl sees why on the post, edits the text and submits again
      await carl.goto(`/posts/${postId}`);
      const bar = carl.getByRole('region', { name: 'Approval' });
      await expect.poll(() => bar.textContent()).toContain('Changes requested');
      await expect.poll(() => carl.locator('section.comments-panel').textContent()).toContain('Please say which day');
      const asked = (await olga.form.api('GET', `/public/v1/posts/group/${group}/comments`)).json<{ comments: { body: string }[] }>().comments;
      expect(asked.map((c) => c.body)).toEqual(['Please say which day']);
      await screenshot(carl, 'teamwork-4-changes-requested');
      // a contributor cannot go round the rule by scheduling it himself
      const scheduled = await carlForm.api('PUT', `/public/v1/posts/${postId}/status`, { status: 'schedule' });
      expect(scheduled.statusCode, scheduled.body).toBe(403);
      expect(scheduled.json()).toMatchObject({ code: 'APPROVAL_REQUIRED', message: expect.stringContaining('rule "Client sign-off"') });
      await carl.getByRole('button', { name: 'Edit' }).click();
      const edit = carl.getByRole('dialog', { name: 'Edit post' });
      await edit.getByLabel('Post text', { exact: true }).fill('Bakery open day on Saturday: doors open at noon');
      await edit.getByRole('button', { name: 'Submit for approval' }).click();
      await expect.poll(() => carl.getByText('Sent for approval').count()).toBe(1);
      await expect.poll(async () => (await post(postId)).approval?.status).toBe('pending_approval');
      expect(await post(postId)).toMatchObject({ state: 'DRAFT', publishDate: at.toUTC().toISO() });
      clock.advance(1000);

      // 5. the owner shares it for review, with approval allowed; the link is shown once
      await page.goto(`/posts/${postId}`);
      await page.getByRole('button', { name: 'Share for review' }).click();
      const share = page.getByRole('dialog', { name: 'Share for review' });
      await share.getByLabel('Title (optional)').fill('Open day post for Acme');
      await share.getByRole('checkbox', { name: /approve or request changes/ }).check();
      await share.getByRole('button', { name: 'Create link' }).click();
      const url = await share.getByLabel('Preview link', { exact: true }).inputValue();
      expect(url).toMatch(new RegExp(`^${h.origin}/preview/tdp_[A-Za-z0-9_-]{43}$`));
      await screenshot(page, 'teamwork-5-share');
      await share.getByRole('button', { name: 'Done, I have saved it' }).click();
      clock.advance(1000);

      // 6. a client in a fresh browser (no cookies) opens it, gives a name and approves
      expect(await clientContext.cookies()).toEqual([]);
      const clara = await clientContext.newPage();
      await clara.goto(url);
      await clara.getByRole('heading', { name: 'Open day post for Acme' }).waitFor();
      await clara.getByText('Awaiting your approval').waitFor();
      await expect.poll(() => clara.getByRole('article', { name: `Preview on ${telegram.name}` }).textContent()).toContain('Bakery open day on Saturday');
      await clara.getByRole('textbox', { name: 'Your name' }).fill('Clara');
      await clara.getByRole('button', { name: 'Save' }).click();
      await clara.getByText('Reviewing as').waitFor();
      await screenshot(clara, 'teamwork-6-client');
      await clara.getByRole('button', { name: 'Approve' }).click();
      await clara.getByText('Approved', { exact: true }).waitFor();
      await expect.poll(async () => (await post(postId)).state).toBe('QUEUE');
      clock.advance(1000);
      expect(h.telegram.messages.map((m) => m.text)).not.toContain('Bakery open day on Saturday: doors open at noon');

      // 7. the server's clock reaches the post's time: the simulator publishes it
      clock.advance(at.toMillis() - clock.now() + 1000);
      await releaseDueJobs(h.t, clock);
      await expect.poll(async () => (await post(postId)).state, { timeout: 30_000 }).toBe('PUBLISHED');
      expect(h.telegram.messages.map((m) => m.text)).toEqual(['Bakery open day on Saturday: doors open at noon']);
      await page.goto(`/posts/${postId}`);
      await expect.poll(() => page.locator('.post-sub').textContent()).toContain('Published');
      await screenshot(page, 'teamwork-7-published');

      // 8. the log names who did each step, oldest first (the API, then the Activity page). The
      // server's clock stood still within each step (and moved a second between them), so what one
      // step recorded shares a time and is compared as a set.
      const expected = [
        ['user:Carl post.created', 'user:Carl post.submitted'],
        ['user:Olga post.changes_requested'],
        ['user:Carl post.edited', 'user:Carl post.submitted'],
        ['user:Olga preview_link.created'],
        ['preview_link:Clara (preview link) post.approved'],
        ['system:System post.published'],
      ];
      const entries = (await olga.form.api('GET', '/public/v1/activity?limit=100')).json<{ entries: Entry[] }>().entries;
      const flow = entries.filter((e) => FLOW_ACTIONS.includes(e.action));
      expect(bySteps(flow.map((e) => ({ at: e.at, line: `${e.actor.kind}:${e.actor.name} ${e.action}` })))).toEqual(expected);
      // each names this post (or its group)
      const targets = flow.filter((e) => e.action !== 'preview_link.created').map((e) => e.target.id);
      expect(targets.filter((id) => id !== postId && id !== group)).toEqual([]);

      await page.goto('/activity');
      const rows = page.getByRole('table').getByRole('row');
      await expect.poll(async () => (await rows.allTextContents()).join('\n')).toContain('Clara (preview link)');
      const shown: { at: string; who: string; what: string }[] = [];
      for (const row of await page.getByRole('table').locator('tbody tr').all()) {
        shown.push({
          at: (await row.locator('time').getAttribute('datetime')) ?? '',
          who: (await row.locator('[data-label="Who"]').textContent()) ?? '',
          what: (await row.locator('[data-label="What"]').textContent()) ?? '',
        });
      }
      expect(bySteps(shown.filter((r) => /^Post |^Preview link created$/.test(r.what)).map((r) => ({ at: r.at, line: `${r.who}: ${r.what}` })))).toEqual([
        ['Carl Person: Post created', 'Carl Person: Post submitted'],
        ['Olga Person: Post changes requested'],
        ['Carl Person: Post edited', 'Carl Person: Post submitted'],
        ['Olga Person: Preview link created'],
        ['Clara (preview link) Preview link: Post approved'],
        ['System Tidings: Post published'],
      ]);
      await screenshot(page, 'teamwork-8-activity');
    } finally {
      await carlContext.close();
      await clientContext.close();
    }
  });

  // An edit keeps its group, so the thread (and links shared before it) stay with the post.
  it('keeps the comment that asked for changes on the post after the contributor’s edit', async () => {
    expect(postId).not.toBe('');
    const { group } = await post(postId);
    const thread = await olga.form.api('GET', `/public/v1/posts/group/${group}/comments`);
    expect(thread.statusCode, thread.body).toBe(200);
    expect(thread.json<{ comments: { body: string }[] }>().comments.map((c) => c.body).join('\n')).toContain('Please say which day');
  });
});
