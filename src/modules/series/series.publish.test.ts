import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { releaseDueJobs, waitFor } from '../../../test/factories.js';
import { call } from '../../../test/helpers.js';
import { startTelegramApp, type TelegramApp } from '../../../test/telegram-app.js';

/**
 * A repeating post driven through the publisher across a DST change (issue 30): 09:00 Europe/Berlin
 * every Monday goes out at 07:00 UTC in summer time and 08:00 UTC after the late-October change —
 * not an hour early, not an hour late. The app clock is moved forward, the publish jobs due by it released
 * (`releaseDueJobs`); the publisher and the Telegram simulator are the real ones, and each next
 * occurrence is made by the series extender as it would be in a worker.
 */
describe('a weekly 09:00 Europe/Berlin series, published across the October DST change', () => {
  let app: TelegramApp;
  beforeAll(async () => {
    app = await startTelegramApp();
  });
  afterAll(async () => app?.close());

  const api = (method: 'GET' | 'POST', url: string, payload?: object) => call(app.t.app, app.org.apiKey, { method, url: `/public/v1${url}`, ...(payload ? { payload } : {}) });
  /**
   * Moves the app clock to `iso` and releases the publish jobs due by it (pg-boss compares their
   * start times, in app time, with the database's real clock: a 2027 job never fires by itself).
   */
  const moveTo = async (iso: string) => {
    app.clock.set(Date.parse(iso));
    await releaseDueJobs(app.t, app.clock);
  };
  const post = async (id: string) => (await api('GET', `/posts/${id}`)).json<{ state: string; publishedAt: string | null; publishDate: string }>();
  const occurrence = async (seriesId: string, index: number) => {
    const { rows } = await app.t.deps.database.sql.executeSql(`SELECT id FROM posts WHERE series_id = $1 AND series_index = $2 AND parent_post_id IS NULL`, [seriesId, index]);
    return (rows[0] as { id: string } | undefined)?.id;
  };
  /** not sent a minute before its time; sent once just after, at its instant by the app clock */
  async function publishesAt(id: string, instant: string, sentBefore: number) {
    await moveTo(new Date(Date.parse(instant) - 60_000).toISOString());
    await new Promise((r) => setTimeout(r, 600));
    expect((await post(id)).state).toBe('QUEUE');
    expect(app.sends()).toHaveLength(sentBefore);
    await moveTo(new Date(Date.parse(instant) + 1000).toISOString());
    const done = await waitFor(async () => {
      const p = await post(id);
      return p.state === 'PUBLISHED' ? p : undefined;
    }, 15_000, `occurrence ${id} published`);
    expect(done.publishDate).toBe(instant);
    expect(Date.parse(done.publishedAt!) - Date.parse(instant)).toBeGreaterThanOrEqual(0);
    expect(Date.parse(done.publishedAt!) - Date.parse(instant)).toBeLessThan(60_000);
    expect(app.sends()).toHaveLength(sentBefore + 1);
  }

  it('goes out at 07:00Z on the last Monday of summer time and at 08:00Z on the first of winter time', async () => {
    // Europe leaves summer time on Sunday 2027-10-31: Monday 25 October is CEST, Monday 1 November CET.
    const res = await api('POST', '/series', {
      rule: { frequency: 'weekly', interval: 1, weekdays: ['MO'], time: '09:00', timeZone: 'Europe/Berlin', startDate: '2027-10-25', count: 2 },
      posts: [{ integration: { id: app.channel }, value: [{ content: 'Monday briefing', image: [] }] }],
    });
    expect(res.statusCode, res.body).toBe(201);
    const created = res.json<{ series: { id: string }; occurrences: { publishDate: string }[] }>();
    const seriesId = created.series.id;
    // 11 months away: only the next occurrence exists yet (the horizon is 30 days)
    expect(created.occurrences.map((o) => o.publishDate)).toEqual(['2027-10-25T07:00:00.000Z']);

    const first = (await occurrence(seriesId, 0))!;
    await publishesAt(first, '2027-10-25T07:00:00.000Z', 0);

    // the extender (every SERIES_EXTEND_INTERVAL_SECONDS in a worker) makes the next one
    await app.t.deps.services.series.extendDue();
    const second = (await occurrence(seriesId, 1))!;
    expect(second).toBeDefined();
    // 07:00Z on 1 November would be 08:00 Berlin: an hour early
    await publishesAt(second, '2027-11-01T08:00:00.000Z', 1);
    const detail = (await api('GET', `/series/${seriesId}`)).json<{ completed: boolean; counts: { published: number } }>();
    expect(detail).toMatchObject({ completed: true, counts: { published: 2 } });
  });
});
