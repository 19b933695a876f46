import { beforeEach, describe, expect, it } from 'vitest';
import { createManualClock, type ManualClock } from '../../lib/clock.js';
import { createChannel } from '../../../test/factories.js';
import { call, expectError, expectIsolated, useTestApp } from '../../../test/helpers.js';

const DAY = 86_400_000;
const START = Date.UTC(2026, 10, 21, 12, 0, 0);

interface Queue {
  id: string;
  name: string;
  integrations: string[];
  order: string;
  minGapDays: number;
  horizonDays: number;
  enabled: boolean;
  channels: { integrationId: string; consecutiveFailures: number; paused: boolean; pausedAt: string | null; pausedReason: string | null }[];
}
interface Item {
  id: string;
  position: number;
  content: string;
  variations: string[];
}
interface Fill {
  integrationId: string;
  at: string;
  itemId: string;
  variation: number;
  postId: string;
}
interface FillResult {
  created: Fill[];
  empty: { integrationId: string; at: string }[];
}
interface Plan {
  slots: { integrationId: string; at: string; itemId: string | null; variation: number | null; content: string | null }[];
}

describe('evergreen queues', () => {
  let clock: ManualClock;
  const { t, orgs: { acme, beta } } = useTestApp(() => {
    clock = createManualClock(START);
    return { clock };
  }, 'Acme', 'Beta');
  beforeEach(() => clock.set(START));

  const api = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown, key = acme.apiKey) =>
    call(t.app, key, { method, url: `/public/v1${url}`, ...(payload === undefined ? {} : { payload: payload as object }) });

  async function createQueue(body: Record<string, unknown>, key = acme.apiKey) {
    const res = await api('POST', '/evergreen', body, key);
    expect(res.statusCode, res.body).toBe(201);
    return res.json<Queue>();
  }
  async function addItem(queueId: string, body: Record<string, unknown>, key = acme.apiKey) {
    const res = await api('POST', `/evergreen/${queueId}/items`, body, key);
    expect(res.statusCode, res.body).toBe(201);
    return res.json<Item>();
  }
  async function fill(queueId: string, key = acme.apiKey) {
    const res = await api('POST', `/evergreen/${queueId}/fill`, undefined, key);
    expect(res.statusCode, res.body).toBe(200);
    return res.json<FillResult>();
  }
  async function postsOf(key: string, from: number, to: number) {
    const res = await api('GET', `/posts?startDate=${new Date(from).toISOString()}&endDate=${new Date(to).toISOString()}`, undefined, key);
    expect(res.statusCode, res.body).toBe(200);
    return res.json<{ posts: { id: string; content: string; publishDate: string; creationMethod: string; integration: { id: string } }[] }>().posts;
  }
  /** The default posting times (02:00, 06:40, 11:40 UTC) after `from` up to `to`. */
  function slotsBetween(from: number, to: number) {
    const out: number[] = [];
    for (let day = Math.floor(from / DAY) * DAY; day <= to; day += DAY) for (const m of [120, 400, 700]) if (day + m * 60_000 > from && day + m * 60_000 <= to) out.push(day + m * 60_000);
    return out;
  }

  it('fills the free slots of a week over three channels, never repeating an item on a channel within the gap, leaving taken slots alone', async () => {
    const org = await t.createOrg('Week');
    const x = await createChannel(t, org, 'x', { name: 'X', defaultSettings: { who_can_reply_post: 'everyone' } });
    const sky = await createChannel(t, org, 'bluesky', { name: 'Sky' });
    const tg = await createChannel(t, org, 'telegram', { name: 'TG' });
    // A post someone scheduled by hand holds one of X's slots.
    const handSlot = Date.UTC(2026, 10, 23, 6, 40);
    const own = await api('POST', '/posts', { type: 'schedule', date: new Date(handSlot).toISOString(), posts: [{ integration: { id: x.id }, value: [{ content: 'by hand' }] }] }, org.apiKey);
    expect(own.statusCode, own.body).toBe(201);

    const queue = await createQueue({ name: 'Tips', minGapDays: 2, horizonDays: 7 }, org.apiKey);
    expect(queue).toMatchObject({ integrations: [], order: 'sequence', minGapDays: 2, horizonDays: 7, enabled: true, channels: [] });
    const items: Item[] = [];
    for (const n of [1, 2, 3, 4]) items.push(await addItem(queue.id, { content: `Tip ${n}` }, org.apiKey));
    expect(items.map((i) => i.position)).toEqual([0, 1, 2, 3]);

    const result = await fill(queue.id, org.apiKey);
    const week = slotsBetween(START, START + 7 * DAY);
    expect(week).toHaveLength(21);
    for (const channel of [x, sky, tg]) {
      const fills = result.created.filter((f) => f.integrationId === channel.id);
      const empty = result.empty.filter((f) => f.integrationId === channel.id);
      const expected = week.filter((s) => channel !== x || s !== handSlot);
      // every free slot is either filled or reported empty, and only free slots
      expect([...fills.map((f) => Date.parse(f.at)), ...empty.map((e) => Date.parse(e.at))].sort((a, b) => a - b)).toEqual(expected);
      expect(fills.length).toBeGreaterThan(0);
      // the gap: two uses of one item on one channel are at least 2 days apart
      for (const item of items) {
        const times = fills.filter((f) => f.itemId === item.id).map((f) => Date.parse(f.at));
        for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(2 * DAY);
      }
    }
    // With 4 items, 3 slots a day and a 2-day gap, some slots cannot be filled.
    expect(result.empty.length).toBeGreaterThan(0);

    const posts = await postsOf(org.apiKey, START, START + 8 * DAY);
    expect(posts.filter((p) => p.creationMethod === 'EVERGREEN')).toHaveLength(result.created.length);
    expect(posts.filter((p) => p.integration.id === x.id && Date.parse(p.publishDate) === handSlot).map((p) => p.content)).toEqual(['by hand']);
    for (const f of result.created) {
      const post = posts.find((p) => p.id === f.postId)!;
      expect({ channel: post.integration.id, at: Date.parse(post.publishDate), content: post.content }).toEqual({
        channel: f.integrationId,
        at: Date.parse(f.at),
        content: items.find((i) => i.id === f.itemId)!.content,
      });
    }

    // A second fill finds nothing new to fill.
    const again = await fill(queue.id, org.apiKey);
    expect(again.created).toEqual([]);
    expect((await postsOf(org.apiKey, START, START + 8 * DAY)).length).toBe(posts.length);
  });

  it('sequence goes round by position and rotates variations; shuffle picks another order, still within the gap', async () => {
    const org = await t.createOrg('Order');
    const a = await createChannel(t, org, 'telegram', { name: 'A' });
    const b = await createChannel(t, org, 'telegram', { name: 'B' });
    const seq = await createQueue({ name: 'Seq', integrations: [a.id], minGapDays: 0, horizonDays: 3 }, org.apiKey);
    const i1 = await addItem(seq.id, { content: 'one', variations: ['one, again', 'one, third way'] }, org.apiKey);
    const i2 = await addItem(seq.id, { content: 'two' }, org.apiKey);
    const i3 = await addItem(seq.id, { content: 'three' }, org.apiKey);
    const seqFill = await fill(seq.id, org.apiKey);
    expect(seqFill.created).toHaveLength(9);
    expect(seqFill.created.map((f) => f.itemId)).toEqual([i1, i2, i3, i1, i2, i3, i1, i2, i3].map((i) => i.id));
    expect(seqFill.created.map((f) => f.variation)).toEqual([0, 0, 0, 1, 0, 0, 2, 0, 0]);
    const contents = (await postsOf(org.apiKey, START, START + 4 * DAY)).sort((x, y) => Date.parse(x.publishDate) - Date.parse(y.publishDate)).map((p) => p.content);
    expect(contents).toEqual(['one', 'two', 'three', 'one, again', 'two', 'three', 'one, third way', 'two', 'three']);

    // The sequence goes on where it stopped, and the variations wrap round.
    clock.advance(DAY);
    const next = await fill(seq.id, org.apiKey);
    expect(next.created.map((f) => [f.itemId, f.variation])).toEqual([
      [i1.id, 0],
      [i2.id, 0],
      [i3.id, 0],
    ]);
    clock.set(START);

    const shuffled = await createQueue({ name: 'Shuffle', integrations: [b.id], order: 'shuffle', minGapDays: 1, horizonDays: 5 }, org.apiKey);
    const items: Item[] = [];
    for (const n of [1, 2, 3, 4, 5]) items.push(await addItem(shuffled.id, { content: `s${n}` }, org.apiKey));
    const shuffleFill = await fill(shuffled.id, org.apiKey);
    const order = shuffleFill.created.map((f) => items.findIndex((i) => i.id === f.itemId));
    expect(order.length + shuffleFill.empty.length).toBe(15);
    expect(order).not.toEqual(order.map((_, k) => k % 5));
    for (const [k, f] of shuffleFill.created.entries()) {
      for (const g of shuffleFill.created.slice(k + 1)) if (g.itemId === f.itemId) expect(Date.parse(g.at) - Date.parse(f.at)).toBeGreaterThanOrEqual(DAY);
    }
  });

  it('two fills racing never fill one slot twice (same queue, or two queues on one channel)', async () => {
    const org = await t.createOrg('Race');
    const ch = await createChannel(t, org, 'telegram', { name: 'C' });
    const q1 = await createQueue({ name: 'Q1', minGapDays: 0, horizonDays: 3 }, org.apiKey);
    const q2 = await createQueue({ name: 'Q2', minGapDays: 0, horizonDays: 3 }, org.apiKey);
    await addItem(q1.id, { content: 'from q1' }, org.apiKey);
    await addItem(q2.id, { content: 'from q2' }, org.apiKey);
    const results = await Promise.all([fill(q1.id, org.apiKey), fill(q1.id, org.apiKey), fill(q2.id, org.apiKey), fill(q2.id, org.apiKey)]);
    const created = results.flatMap((r) => r.created);
    const slots = slotsBetween(START, START + 3 * DAY);
    expect(created.map((f) => Date.parse(f.at)).sort((a, b) => a - b)).toEqual(slots);
    const posts = await postsOf(org.apiKey, START, START + 4 * DAY);
    expect(posts.filter((p) => p.integration.id === ch.id).map((p) => Date.parse(p.publishDate)).sort((a, b) => a - b)).toEqual(slots);
  });

  it('pauses a channel whose posts keep failing after 3 failures, and nothing else; resume via the API', async () => {
    const org = await t.createOrg('Failing');
    const bad = await createChannel(t, org, 'x', { name: 'Bad X', defaultSettings: { who_can_reply_post: 'everyone' } });
    const good = await createChannel(t, org, 'bluesky', { name: 'Good Sky' });
    const queue = await createQueue({ name: 'Recycle', integrations: [bad.id, good.id], minGapDays: 0, horizonDays: 2 }, org.apiKey);
    // Another queue on the failing channel and a third one.
    const third = await createChannel(t, org, 'telegram', { name: 'Third' });
    const other = await createQueue({ name: 'Other', integrations: [bad.id, third.id], minGapDays: 0, horizonDays: 2 }, org.apiKey);
    await addItem(queue.id, { content: 'Same text every time' }, org.apiKey);
    await addItem(other.id, { content: 'Other queue' }, org.apiKey);
    const first = await fill(queue.id, org.apiKey);
    expect(first.created.filter((f) => f.integrationId === bad.id)).toHaveLength(6);

    // The platform refused the bad channel's first three posts as duplicates (the publisher ends them ERROR).
    const badPosts = first.created.filter((f) => f.integrationId === bad.id).slice(0, 3);
    for (const f of badPosts) {
      await t.deps.database.sql.executeSql(`UPDATE posts SET state = 'ERROR', error = 'rejected: duplicate content' WHERE id = $1`, [f.postId]);
    }
    // The good channel's first post went out.
    await t.deps.database.sql.executeSql(`UPDATE posts SET state = 'PUBLISHED', published_at = now() WHERE id = $1`, [first.created.find((f) => f.integrationId === good.id)!.postId]);

    clock.advance(DAY);
    const second = await fill(queue.id, org.apiKey);
    expect(second.created.filter((f) => f.integrationId === bad.id)).toEqual([]);
    expect(second.created.filter((f) => f.integrationId === good.id)).toHaveLength(3);
    const q = (await api('GET', `/evergreen/${queue.id}`, undefined, org.apiKey)).json<Queue>();
    expect(q.channels).toEqual([
      { integrationId: bad.id, consecutiveFailures: 3, paused: true, pausedAt: new Date(START + DAY).toISOString(), pausedReason: expect.stringContaining('duplicate') as string },
    ]);
    // Nothing else is paused: the other queue fills its channels, the failing one too (its pause is per queue).
    expect((await api('GET', `/evergreen/${other.id}`, undefined, org.apiKey)).json<Queue>().channels).toEqual([]);
    const otherFill = await fill(other.id, org.apiKey);
    expect(otherFill.created.filter((f) => f.integrationId === third.id)).toHaveLength(6);
    expect(otherFill.created.filter((f) => f.integrationId === bad.id)).toHaveLength(3);
    // The plan leaves the paused channel out.
    const plan = (await api('GET', `/evergreen/${queue.id}/plan?days=5`, undefined, org.apiKey)).json<Plan>();
    expect(plan.slots.some((s) => s.integrationId === bad.id)).toBe(false);
    // One notification.
    const notes = await t.deps.database.sql.executeSql(`SELECT content FROM notifications WHERE organization_id = $1`, [org.id]);
    expect((notes.rows as { content: string }[]).filter((n) => n.content.includes('paused'))).toHaveLength(1);
    await fill(queue.id, org.apiKey);
    const notesAfter = await t.deps.database.sql.executeSql(`SELECT content FROM notifications WHERE organization_id = $1`, [org.id]);
    expect((notesAfter.rows as { content: string }[]).filter((n) => n.content.includes('paused'))).toHaveLength(1);

    const resumed = await api('POST', `/evergreen/${queue.id}/channels/${bad.id}/resume`, undefined, org.apiKey);
    expect(resumed.statusCode, resumed.body).toBe(200);
    expect(resumed.json<Queue>().channels).toEqual([]);
    clock.advance(DAY);
    const afterResume = await fill(queue.id, org.apiKey);
    expect(afterResume.created.filter((f) => f.integrationId === bad.id)).toHaveLength(3);
    clock.set(START);
  });

  it('the plan lists future fills without creating anything, and the fill then does what it showed', async () => {
    const org = await t.createOrg('Plan');
    const ch = await createChannel(t, org, 'telegram', { name: 'P' });
    const queue = await createQueue({ name: 'Planned', order: 'shuffle', minGapDays: 1, horizonDays: 3 }, org.apiKey);
    for (const n of [1, 2, 3]) await addItem(queue.id, { content: `p${n}`, variations: [`p${n} bis`] }, org.apiKey);
    const res = await api('GET', `/evergreen/${queue.id}/plan?days=3`, undefined, org.apiKey);
    expect(res.statusCode, res.body).toBe(200);
    const plan = res.json<Plan>();
    expect(plan.slots.map((s) => Date.parse(s.at))).toEqual(slotsBetween(START, START + 3 * DAY));
    expect(plan.slots.every((s) => s.integrationId === ch.id)).toBe(true);
    expect(await postsOf(org.apiKey, START, START + 10 * DAY)).toEqual([]);

    const filled = await fill(queue.id, org.apiKey);
    expect(filled.created.map((f) => ({ integrationId: f.integrationId, at: f.at, itemId: f.itemId, variation: f.variation }))).toEqual(
      plan.slots.filter((s) => s.itemId !== null).map((s) => ({ integrationId: s.integrationId, at: s.at, itemId: s.itemId, variation: s.variation })),
    );
    // Beyond what it created: the plan now starts after the horizon.
    const later = (await api('GET', `/evergreen/${queue.id}/plan?days=5`, undefined, org.apiKey)).json<Plan>();
    expect(later.slots.map((s) => Date.parse(s.at))).toEqual(slotsBetween(START + 3 * DAY, START + 5 * DAY));
  });

  it('items are checked against each channel of the queue; bad input is a 400 naming the fields', async () => {
    const x = await createChannel(t, acme, 'x', { name: 'Acme X', defaultSettings: { who_can_reply_post: 'everyone' } });
    const queue = await createQueue({ name: 'Checked', integrations: [x.id] });
    const long = 'a'.repeat(281);
    const r1 = await api('POST', `/evergreen/${queue.id}/items`, { content: long, variations: ['fine', long] });
    expect(expectError(r1, 400, 'VALIDATION_FAILED').fields!.map((f) => f.path).sort()).toEqual(['content', 'variations.1']);
    const r2 = await api('POST', `/evergreen/${queue.id}/items`, { content: 'ok', media: ['00000000-0000-4000-8000-000000000000'] });
    expect(expectError(r2, 400, 'VALIDATION_FAILED').fields!.map((f) => f.path)).toEqual(['media.0']);
    const r3 = await api('POST', `/evergreen/${queue.id}/items`, { content: '' });
    expect(expectError(r3, 400, 'VALIDATION_FAILED').fields!.map((f) => f.path)).toEqual(['content']);
    const item = await addItem(queue.id, { content: 'short' });
    const r4 = await api('PATCH', `/evergreen/${queue.id}/items/${item.id}`, { variations: [long] });
    expect(expectError(r4, 400, 'VALIDATION_FAILED').fields!.map((f) => f.path)).toEqual(['variations.0']);
    const r5 = await api('PATCH', `/evergreen/${queue.id}/items/${item.id}`, { content: 'changed', position: 5 });
    expect(r5.json<Item>()).toMatchObject({ content: 'changed', position: 5 });

    const bad = await api('POST', '/evergreen', { name: '', order: 'random', minGapDays: -1, horizonDays: 0 });
    expect(expectError(bad, 400, 'VALIDATION_FAILED').fields!.map((f) => f.path).sort()).toEqual(['horizonDays', 'minGapDays', 'name', 'order']);
    const unknown = await api('POST', '/evergreen', { name: 'n', integrations: [x.id, 'nope'] });
    expect(expectError(unknown, 400, 'VALIDATION_FAILED').fields!.map((f) => f.path)).toEqual(['integrations.1']);
    const badPlan = await api('GET', `/evergreen/${queue.id}/plan?days=0`);
    expect(expectError(badPlan, 400, 'VALIDATION_FAILED').fields!.map((f) => f.path)).toEqual(['days']);
    const badPatch = await api('PATCH', `/evergreen/${queue.id}`, { order: 'sideways' });
    expect(expectError(badPatch, 400, 'VALIDATION_FAILED').fields!.map((f) => f.path)).toEqual(['order']);
  });

  it('a sandbox key names sandbox channels only (a live channel, or none = all, is a 400 naming the field)', async () => {
    const live = await createChannel(t, acme, 'telegram', { name: 'Live TG' });
    const made = await t.deps.services.organizations.createApiKey(acme.id, 'sandbox', { sandbox: true });
    const named = await api('POST', '/evergreen', { name: 'S', integrations: [live.id] }, made.apiKey);
    expect(expectError(named, 400, 'VALIDATION_FAILED').fields!.map((f) => f.path)).toEqual(['integrations.0']);
    const all = await api('POST', '/evergreen', { name: 'S' }, made.apiKey);
    expect(expectError(all, 400, 'VALIDATION_FAILED').fields!.map((f) => f.path)).toEqual(['integrations']);
    const queue = await createQueue({ name: 'Live', integrations: [live.id] });
    // a queue on a live channel is not the sandbox key's to see or change
    expectError(await api('PATCH', `/evergreen/${queue.id}`, { integrations: [] }, made.apiKey), 404, 'NOT_FOUND');
  });

  it('non-UUID and unknown ids are 404; another organisation sees nothing', async () => {
    const x = await createChannel(t, acme, 'x', { name: 'Acme X2', defaultSettings: { who_can_reply_post: 'everyone' } });
    const queue = await createQueue({ name: 'Mine', integrations: [x.id] });
    const item = await addItem(queue.id, { content: 'mine' });
    for (const url of ['/evergreen/abc', '/evergreen/abc/items', `/evergreen/${queue.id}/items/abc`, '/evergreen/abc/plan', `/evergreen/00000000-0000-4000-8000-000000000000`]) {
      expectError(await api('GET', url), 404, 'NOT_FOUND');
    }
    expectError(await api('POST', '/evergreen/abc/fill'), 404, 'NOT_FOUND');
    expectError(await api('POST', `/evergreen/${queue.id}/channels/abc/resume`), 404, 'NOT_FOUND');
    expectError(await api('PATCH', '/evergreen/abc', { name: 'x' }), 404, 'NOT_FOUND');
    expectError(await api('DELETE', `/evergreen/${queue.id}/items/abc`), 404, 'NOT_FOUND');

    await expectIsolated(t.app, { method: 'GET', url: `/public/v1/evergreen/${queue.id}` }, acme, beta);
    await expectIsolated(t.app, { method: 'GET', url: `/public/v1/evergreen/${queue.id}/items/${item.id}` }, acme, beta);
    await expectIsolated(t.app, { method: 'GET', url: `/public/v1/evergreen/${queue.id}/plan` }, acme, beta);
    await expectIsolated(t.app, { method: 'POST', url: `/public/v1/evergreen/${queue.id}/channels/${x.id}/resume` }, acme, beta);
    expect((await api('GET', '/evergreen', undefined, beta.apiKey)).json<Queue[]>()).toEqual([]);
    // Beta's queue cannot name Acme's channel.
    const foreign = await api('POST', '/evergreen', { name: 'n', integrations: [x.id] }, beta.apiKey);
    expect(expectError(foreign, 400, 'VALIDATION_FAILED').fields!.map((f) => f.path)).toEqual(['integrations.0']);

    const del = await api('DELETE', `/evergreen/${queue.id}/items/${item.id}`);
    expect(del.json()).toEqual({ id: item.id, deleted: true });
    expect((await api('GET', `/evergreen/${queue.id}/items`)).json<Item[]>()).toEqual([]);
    const gone = await api('DELETE', `/evergreen/${queue.id}`);
    expect(gone.json()).toEqual({ id: queue.id, deleted: true });
    expectError(await api('GET', `/evergreen/${queue.id}`), 404, 'NOT_FOUND');
  });
});
