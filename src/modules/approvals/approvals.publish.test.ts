import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp, type Browser } from '../../../test/browser.js';
import { eventsOf, releaseDueJobs, waitFor } from '../../../test/factories.js';
import { call, expectError } from '../../../test/helpers.js';
import { startTelegramApp, type TelegramApp } from '../../../test/telegram-app.js';

interface Post {
  id: string;
  group: string;
  state: string;
  content: string;
  publishDate: string;
  approval: { status: string; ruleId: string | null; requestedBy: string | null; decidedBy: string | null } | null;
}

/**
 * The approval workflow end to end against the real publisher and the Telegram simulator (issue
 * 31): a key held by the organisation's rule cannot queue; its draft is submitted, changes are
 * requested, it is fixed and approved, an edit sends it back, and once approved again it is
 * published at its time. A post whose time passes while pending is not published and is reported.
 */
describe('approvals (issue 31)', () => {
  let app: TelegramApp;
  let owner: Browser;
  let ruleId: string;
  let keyId: string;
  beforeAll(async () => {
    app = await startTelegramApp();
    // the deployment's first account owns the organisations nobody belongs to yet
    owner = await signUp(app.t.app, { email: 'olga@example.test', name: 'Olga' });
    const rule = await owner.api('POST', '/public/v1/approval-rules', { name: 'Client sign-off', scope: 'organization' });
    expect(rule.statusCode, rule.body).toBe(201);
    ruleId = rule.json<{ id: string }>().id;
    const keys = (await owner.api('GET', '/public/v1/api-keys')).json<{ id: string; approvalExempt: boolean }[]>();
    expect(keys).toHaveLength(1);
    expect(keys[0]!.approvalExempt).toBe(false);
    keyId = keys[0]!.id;
  });
  afterAll(async () => app?.close());

  const at = (minutes: number) => new Date(app.clock.now() + minutes * 60_000).toISOString();
  const key = (method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown) => call(app.t.app, app.org.apiKey, { method, url, ...(payload === undefined ? {} : { payload: payload as object }) });
  const body = (type: string, content: string, date: string, edit?: { group: string; id: string }) => ({
    type,
    date,
    shortLink: false,
    tags: [],
    posts: [{ integration: { id: app.channel }, ...(edit ? { group: edit.group } : {}), value: [{ content, image: [], ...(edit ? { id: edit.id } : {}) }] }],
  });
  const getPost = async (id: string) => (await key('GET', `/public/v1/posts/${id}`)).json<Post>();
  const count = async (type: string) => (await eventsOf(app.t, app.org.id)).filter((e) => e.type === type).length;

  it('holds a key to the rule, then request changes → edit → approve → edit sends it back → approve → published at its time', async () => {
    const date = at(30);
    const refused = await key('POST', '/public/v1/posts', body('schedule', 'Launch day!', date));
    expectError(refused, 403, 'APPROVAL_REQUIRED');
    expect(refused.json<{ message: string }>().message).toContain('rule "Client sign-off"');
    expect(refused.json<{ message: string }>().message).toContain('Acme News');

    const made = await key('POST', '/public/v1/posts', body('draft', 'Launch day!', date));
    expect(made.statusCode, made.body).toBe(201);
    const [{ postId, group }] = made.json<{ postId: string; group: string }[]>() as [{ postId: string; group: string }];
    const g = `/public/v1/posts/group/${group}`;

    expectError(await owner.api('POST', `${g}/approve`, {}), 409, 'CONFLICT'); // a draft, not submitted
    const submitted = await key('POST', `${g}/submit`, { comment: 'For Friday' });
    expect(submitted.statusCode, submitted.body).toBe(200);
    // the key cannot approve its own post
    expectError(await key('POST', `${g}/approve`, {}), 403, 'FORBIDDEN');
    expect((await getPost(postId)).approval).toMatchObject({ status: 'pending_approval', ruleId, requestedBy: expect.any(String) });
    expect(await count('post.approval_requested')).toBe(1);
    expectError(await key('POST', `${g}/submit`, {}), 409, 'CONFLICT');

    // the queue shows it to the owner, who may decide
    const queue = (await owner.api('GET', '/public/v1/approvals')).json<{ groups: { group: string; status: string; canApprove: boolean; rule: { name: string } }[] }>();
    expect(queue.groups).toEqual([expect.objectContaining({ group, status: 'pending_approval', canApprove: true, rule: { id: ruleId, name: 'Client sign-off' } })]);

    const changes = await owner.api('POST', `${g}/request-changes`, { comment: 'Say which day, please' });
    expect(changes.statusCode, changes.body).toBe(200);
    expect((await getPost(postId)).approval).toMatchObject({ status: 'changes_requested', decidedBy: 'Olga' });
    expect(await count('post.changes_requested')).toBe(1);
    const thread = (await owner.api('GET', `${g}/comments`)).json<{ comments: { body: string; author: { name: string } }[] }>().comments;
    expect(thread.map((c) => c.body).sort()).toEqual(['For Friday', 'Say which day, please']);

    // the writer fixes it (still a draft, changes still requested) and submits again
    const fixed = await key('POST', '/public/v1/posts', body('draft', 'Launch day is Friday!', date, { group, id: postId }));
    expect(fixed.statusCode, fixed.body).toBe(201);
    const fixedGroup = fixed.json<{ group: string }[]>()[0]!.group;
    const fixedPost = fixed.json<{ postId: string }[]>()[0]!.postId;
    expect((await getPost(fixedPost)).approval?.status).toBe('changes_requested');
    expect((await key('POST', `/public/v1/posts/group/${fixedGroup}/submit`, {})).statusCode).toBe(200);
    expect(await count('post.approval_requested')).toBe(2);

    const approved = await owner.api('POST', `/public/v1/posts/group/${fixedGroup}/approve`, {});
    expect(approved.statusCode, approved.body).toBe(200);
    let post = await getPost(fixedPost);
    expect(post.state).toBe('QUEUE');
    expect(post.approval).toMatchObject({ status: 'approved', decidedBy: 'Olga' });
    expect(await count('post.approved')).toBe(1);

    // an edit by the key sends it back for approval (off the queue)
    const edited = await key('POST', '/public/v1/posts', body('schedule', 'Launch day is this Friday!', date, { group: fixedGroup, id: fixedPost }));
    expect(edited.statusCode, edited.body).toBe(201);
    const editedGroup = edited.json<{ group: string }[]>()[0]!.group;
    post = await getPost(fixedPost);
    expect([post.state, post.approval?.status]).toEqual(['DRAFT', 'pending_approval']);
    expect(await count('post.approval_requested')).toBe(3);

    expect((await owner.api('POST', `/public/v1/posts/group/${editedGroup}/approve`, { comment: 'Good to go' })).statusCode).toBe(200);
    expect(await count('post.approved')).toBe(2);
    expect((await getPost(fixedPost)).state).toBe('QUEUE');

    // published at its time, once, with the approved text
    app.clock.advance(31 * 60_000);
    await releaseDueJobs(app.t, app.clock);
    await waitFor(async () => (await getPost(fixedPost)).state === 'PUBLISHED', 15_000, 'the approved post published');
    const sent = app.sends().map((r) => JSON.stringify(r.body));
    expect(sent.filter((b) => b.includes('Launch day'))).toEqual([expect.stringContaining('Launch day is this Friday!')]);
    // every transition in the activity log with its actor
    const log = (await owner.api('GET', '/public/v1/activity?limit=100')).json<{ entries: { action: string; actor: { name: string; kind: string } }[] }>().entries;
    const steps = log.filter((e) => e.action.startsWith('post.')).map((e) => `${e.action}:${e.actor.kind}`).reverse();
    expect(steps).toEqual(expect.arrayContaining(['post.submitted:api_key', 'post.changes_requested:user', 'post.approved:user']));
  });

  it('a post whose time passes while pending is not published, is reported once, and needs a new date to be approved', async () => {
    const made = await key('POST', '/public/v1/posts', body('draft', 'Flash sale', at(5)));
    const [{ postId, group }] = made.json<{ postId: string; group: string }[]>() as [{ postId: string; group: string }];
    expect((await key('POST', `/public/v1/posts/group/${group}/submit`, {})).statusCode).toBe(200);
    const before = app.sends().length;

    app.clock.advance(10 * 60_000);
    await releaseDueJobs(app.t, app.clock);
    expect(await app.t.deps.services.approvals.sweepExpired()).toBe(1);
    expect(await app.t.deps.services.approvals.sweepExpired()).toBe(0);
    const expired = (await eventsOf(app.t, app.org.id)).filter((e) => e.type === 'post.approval_expired');
    expect(expired).toEqual([expect.objectContaining({ payload: expect.objectContaining({ postId, status: 'pending_approval' }) })]);
    const notes = (await owner.api('GET', '/public/v1/notifications')).json<{ notifications: { content: string }[] }>().notifications;
    expect(notes.some((n) => n.content.includes('Flash sale') && n.content.includes('was not published'))).toBe(true);
    const post = await getPost(postId);
    expect([post.state, post.approval?.status]).toEqual(['DRAFT', 'pending_approval']);
    expect(app.sends().length).toBe(before);

    const late = await owner.api('POST', `/public/v1/posts/group/${group}/approve`, {});
    expectError(late, 409, 'CONFLICT');
    expect(late.json<{ fields: { path: string }[] }>().fields[0]!.path).toBe('date');
    expectError(await owner.api('POST', `/public/v1/posts/group/${group}/approve`, { date: at(-1) }), 400, 'VALIDATION_FAILED');
    const ok = await owner.api('POST', `/public/v1/posts/group/${group}/approve`, { date: at(60) });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(await getPost(postId)).toMatchObject({ state: 'QUEUE', publishDate: at(60) });
  });

  it('an owner exempts the key: it queues directly; held again, it is refused again', async () => {
    expectError(await key('PUT', `/public/v1/api-keys/${keyId}/approval`, { approvalExempt: true }), 403, 'FORBIDDEN');
    const exempt = await owner.api('PUT', `/public/v1/api-keys/${keyId}/approval`, { approvalExempt: true });
    expect(exempt.json()).toEqual({ id: keyId, name: expect.any(String), approvalExempt: true });
    const queued = await key('POST', '/public/v1/posts', body('schedule', 'Straight out', at(90)));
    expect(queued.statusCode, queued.body).toBe(201);
    expect((await getPost(queued.json<{ postId: string }[]>()[0]!.postId)).state).toBe('QUEUE');
    await owner.api('PUT', `/public/v1/api-keys/${keyId}/approval`, { approvalExempt: false });
    expectError(await key('POST', '/public/v1/posts', body('schedule', 'Held again', at(90))), 403, 'APPROVAL_REQUIRED');
  });
});
