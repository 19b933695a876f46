import { beforeAll, describe, expect, it } from 'vitest';
import { signUp, type Browser } from '../../../test/browser.js';
import { createChannel, eventsOf } from '../../../test/factories.js';
import { call, expectError, manualClock, useTestApp, type TestOrg } from '../../../test/helpers.js';

/** Approval rules, the contributor role, the queue and who may decide (issue 31). */
describe('approval rules and roles (issue 31)', () => {
  const clock = manualClock();
  const { t } = useTestApp({ clock, env: { SIGNUP: 'open' } });
  let owner: Browser;
  let carl: Browser; // contributor
  let mia: Browser; // member
  let miaId: string;
  let acme: TestOrg;
  let tg: string;
  let sky: string;
  const date = () => new Date(clock.now() + 86_400_000).toISOString();
  const body = (type: string, channel: string, content = 'Hello') => ({ type, date: date(), shortLink: false, tags: [], posts: [{ integration: { id: channel }, value: [{ content, image: [] }] }] });

  beforeAll(async () => {
    owner = await signUp(t.app, { email: 'olga@example.test', name: 'Olga', organization: 'Acme' });
    const me = (await owner.api('GET', '/public/v1/me')).json<{ organization: { id: string } }>();
    const invite = async (email: string, role: string, name: string) => {
      const { link } = (await owner.api('POST', '/public/v1/invitations', { email, role })).json<{ link: string }>();
      return signUp(t.app, { email, name, invite: link.split('/').at(-1)! });
    };
    carl = await invite('carl@example.test', 'contributor', 'Carl');
    mia = await invite('mia@example.test', 'member', 'Mia');
    miaId = (await mia.api('GET', '/public/v1/me')).json<{ user: { id: string } }>().user.id;
    const key = await t.deps.services.organizations.createApiKey(me.organization.id, 'script');
    acme = { id: me.organization.id, name: 'Acme', apiKey: key.apiKey };
    tg = (await createChannel(t, acme, 'telegram', { name: 'TG' })).id;
    sky = (await createChannel(t, acme, 'bluesky', { name: 'Sky' })).id;
  });

  it('a contributor drafts and submits but never queues or approves; the owner approves', async () => {
    const refused = await carl.api('POST', '/public/v1/posts', body('schedule', tg));
    expectError(refused, 403, 'APPROVAL_REQUIRED');
    expect(refused.json<{ message: string }>().message).toContain('As a contributor');
    expect((await carl.api('GET', `/public/v1/approvals/check?integrations=${tg}`)).json()).toEqual({ required: true, rule: null, canApprove: false, canSchedule: false });
    expect((await owner.api('GET', `/public/v1/approvals/check?integrations=${tg}`)).json()).toEqual({ required: false, rule: null, canApprove: true, canSchedule: true });
    expectError(await owner.api('GET', '/public/v1/approvals/check?integrations=nope'), 400, 'VALIDATION_FAILED');
    // a queued post (approved for its time) is not the contributor's to move; a draft is
    const queued = await owner.api('POST', '/public/v1/posts', body('schedule', tg, 'Queued by the owner'));
    expect(queued.statusCode, queued.body).toBe(201);
    const { postId: queuedId, group: queuedGroup } = queued.json<{ postId: string; group: string }[]>()[0]!;
    const later = new Date(Date.parse(date()) + 3_600_000).toISOString();
    for (const url of [`/public/v1/posts/${queuedId}/date`, `/public/v1/posts/group/${queuedGroup}/date`]) {
      const moved = await carl.api('PUT', url, { date: later });
      expectError(moved, 403, 'FORBIDDEN');
      expect(moved.json<{ message: string }>().message).toContain('As a contributor you move drafts only');
    }
    const draft = await carl.api('POST', '/public/v1/posts', body('draft', tg, 'A draft of mine'));
    const draftId = draft.json<{ postId: string }[]>()[0]!.postId;
    expect((await carl.api('PUT', `/public/v1/posts/${draftId}/date`, { date: later })).statusCode).toBe(200);
    expect((await owner.api('PUT', `/public/v1/posts/${queuedId}/date`, { date: later })).statusCode).toBe(200);
    expect((await owner.api('DELETE', `/public/v1/posts/${queuedId}`)).statusCode).toBe(200);
    expect((await carl.api('DELETE', `/public/v1/posts/${draftId}`)).statusCode).toBe(200);

    // nothing else that changes the organisation: channels, webhooks, templates…
    const webhook = await carl.api('POST', '/public/v1/webhooks', { name: 'x', url: 'https://example.test/hook' });
    expectError(webhook, 403, 'FORBIDDEN');
    expect(webhook.json<{ message: string }>().message).toContain('Contributors write posts');
    expectError(await carl.api('DELETE', `/public/v1/integrations/${tg}`), 403, 'FORBIDDEN');
    expectError(await carl.api('POST', '/public/v1/templates', { name: 'T', body: {} }), 403, 'FORBIDDEN');
    expect((await carl.api('GET', '/public/v1/integrations')).statusCode).toBe(200);

    const made = await carl.api('POST', '/public/v1/posts', body('draft', tg, 'From Carl'));
    expect(made.statusCode, made.body).toBe(201);
    const { group, postId } = made.json<{ group: string; postId: string }[]>()[0]!;
    expectError(await carl.api('PUT', `/public/v1/posts/${postId}/status`, { status: 'schedule' }), 403, 'APPROVAL_REQUIRED');
    expect((await carl.api('POST', `/public/v1/posts/group/${group}/submit`, {})).statusCode).toBe(200);
    expectError(await carl.api('POST', `/public/v1/posts/group/${group}/approve`, {}), 403, 'FORBIDDEN');

    const carlsView = (await carl.api('GET', '/public/v1/approvals')).json<{ groups: { group: string; canApprove: boolean; requestedBy: string }[] }>().groups;
    expect(carlsView).toEqual([expect.objectContaining({ group, canApprove: false, requestedBy: 'Carl' })]);
    const ownersNotes = (await owner.api('GET', '/public/v1/notifications')).json<{ notifications: { content: string; link: string }[] }>().notifications;
    expect(ownersNotes).toContainEqual(expect.objectContaining({ content: expect.stringContaining('Carl asks for approval of “From Carl”'), link: `/posts/${postId}` }));

    expect((await owner.api('POST', `/public/v1/posts/group/${group}/approve`, {})).statusCode).toBe(200);
    const post = (await owner.api('GET', `/public/v1/posts/${postId}`)).json<{ state: string; approval: { status: string; decidedBy: string } }>();
    expect(post).toMatchObject({ state: 'QUEUE', approval: { status: 'approved', decidedBy: 'Olga' } });
    const carlsNotes = (await carl.api('GET', '/public/v1/notifications')).json<{ notifications: { content: string }[] }>().notifications;
    expect(carlsNotes.some((n) => n.content.startsWith('Olga approved “From Carl”'))).toBe(true);
    // a contributor's edit of the approved post sends it back
    const edit = await carl.api('POST', '/public/v1/posts', { ...body('schedule', tg, 'From Carl, edited'), posts: [{ integration: { id: tg }, group, value: [{ id: postId, content: 'From Carl, edited', image: [] }] }] });
    expect(edit.statusCode, edit.body).toBe(201);
    expect((await owner.api('GET', `/public/v1/posts/${postId}`)).json<{ state: string; approval: { status: string } }>()).toMatchObject({ state: 'DRAFT', approval: { status: 'pending_approval' } });
  });

  it('rules: owners and admins manage them, one per scope, fields named; the most specific rule decides who approves', async () => {
    expectError(await mia.api('POST', '/public/v1/approval-rules', { name: 'x', scope: 'organization' }), 403, 'FORBIDDEN');
    expectError(await call(t.app, acme.apiKey, { method: 'POST', url: '/public/v1/approval-rules', payload: { name: 'x', scope: 'organization' } }), 403, 'FORBIDDEN');
    const noScope = await owner.api('POST', '/public/v1/approval-rules', { name: 'Sky rule', scope: 'channel' });
    expectError(noScope, 400, 'VALIDATION_FAILED');
    expect(noScope.json<{ fields: { path: string }[] }>().fields[0]!.path).toBe('scopeId');
    const badPerson = await owner.api('POST', '/public/v1/approval-rules', { name: 'Sky rule', scope: 'channel', scopeId: sky, approverUserIds: ['00000000-0000-4000-8000-000000000000'] });
    expect(badPerson.json<{ fields: { path: string }[] }>().fields[0]!.path).toBe('approverUserIds.0');

    const org = await owner.api('POST', '/public/v1/approval-rules', { name: 'Everything', scope: 'organization' });
    expect(org.statusCode, org.body).toBe(201);
    expectError(await owner.api('POST', '/public/v1/approval-rules', { name: 'Again', scope: 'organization' }), 409, 'CONFLICT');
    // Sky: Mia (a member) is named; her own posts there queue directly, others' wait for her
    const skyRule = await owner.api('POST', '/public/v1/approval-rules', { name: 'Sky rule', scope: 'channel', scopeId: sky, approverRoles: ['owner'], approverUserIds: [miaId], reapproveOnEdit: false });
    expect(skyRule.statusCode, skyRule.body).toBe(201);
    expect((await owner.api('GET', '/public/v1/approval-rules')).json<{ rules: { name: string }[] }>().rules.map((r) => r.name)).toEqual(['Everything', 'Sky rule']);

    expect((await mia.api('POST', '/public/v1/posts', body('schedule', sky))).statusCode).toBe(201);
    const miaOnTg = await mia.api('POST', '/public/v1/posts', body('schedule', tg));
    expectError(miaOnTg, 403, 'APPROVAL_REQUIRED');
    expect(miaOnTg.json<{ message: string }>().message).toContain('rule "Everything"');

    const byKey = await call(t.app, acme.apiKey, { method: 'POST', url: '/public/v1/posts', payload: body('draft', sky, 'Key on Sky') });
    const { group } = byKey.json<{ group: string }[]>()[0]!;
    expect((await call(t.app, acme.apiKey, { method: 'POST', url: `/public/v1/posts/group/${group}/submit`, payload: {} })).statusCode).toBe(200);
    expect((await mia.api('GET', '/public/v1/approvals?status=pending_approval')).json<{ groups: { group: string; canApprove: boolean; rule: { name: string } }[] }>().groups).toContainEqual(
      expect.objectContaining({ group, canApprove: true, rule: expect.objectContaining({ name: 'Sky rule' }) }),
    );
    const changes = await mia.api('POST', `/public/v1/posts/group/${group}/request-changes`, { comment: '' });
    expectError(changes, 400, 'VALIDATION_FAILED');
    expect((await mia.api('POST', `/public/v1/posts/group/${group}/request-changes`, { comment: 'Add a link' })).statusCode).toBe(200);
    expectError(await mia.api('POST', `/public/v1/posts/group/${group}/request-changes`, { comment: 'Again' }), 409, 'CONFLICT');
    const events = (await eventsOf(t, acme.id)).filter((e) => e.type === 'post.changes_requested' && e.payload.group === group);
    expect(events).toEqual([expect.objectContaining({ payload: expect.objectContaining({ requestedBy: 'Mia', comment: 'Add a link', rule: expect.objectContaining({ name: 'Sky rule' }) }) })]);

    const rules = (await owner.api('GET', '/public/v1/approval-rules')).json<{ rules: { id: string }[] }>().rules;
    for (const r of rules) expect((await owner.api('DELETE', `/public/v1/approval-rules/${r.id}`)).statusCode).toBe(204);
    expectError(await owner.api('DELETE', `/public/v1/approval-rules/${rules[0]!.id}`), 404, 'NOT_FOUND');
  });

  it('a bulk import by a held key writes its posts awaiting approval instead of refusing them', async () => {
    const rule = await owner.api('POST', '/public/v1/approval-rules', { name: 'Imports too', scope: 'organization' });
    expect(rule.statusCode, rule.body).toBe(201);
    const csv = ['channel,date,text', `TG,${date()},Imported one`, `TG,${date()},Imported two`].join('\n');
    const res = await t.app.inject({ method: 'POST', url: '/public/v1/imports', headers: { authorization: acme.apiKey, 'content-type': 'text/csv' }, payload: csv });
    expect(res.statusCode, res.body).toBe(201);
    const open = (await owner.api('GET', '/public/v1/approvals')).json<{ groups: { posts: { content: string; state: string }[] }[] }>().groups.flatMap((g) => g.posts);
    expect(open.filter((p) => p.content.startsWith('Imported')).map((p) => p.state)).toEqual(['DRAFT', 'DRAFT']);
    await owner.api('DELETE', `/public/v1/approval-rules/${rule.json<{ id: string }>().id}`);
  });
});
