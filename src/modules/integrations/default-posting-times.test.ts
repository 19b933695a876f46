import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp, type Browser } from '../../../test/browser.js';
import { call, useTestApp } from '../../../test/helpers.js';
import { createManualClock } from '../../lib/clock.js';
import { startTelegramSimulator, type TelegramSimulator } from '../../platforms/telegram/telegram.simulator.js';

const TOKEN = '123456:AAbbCCddEEffGGhhIIjjKKllMMnnOOppQQ';
const CHATS = ['newyork', 'kolkata', 'bykey', 'nozone', 'again'];
const times = (res: { json<T>(): T }) => res.json<{ postingTimes: { time: number }[] }>().postingTimes.map((p) => p.time);

/**
 * A new channel's posting times are 09:00, 12:30 and 17:00 on the connecting person's clock,
 * stored (as every slot) in minutes after 00:00 UTC. "Now" is 29 November 2026: New York is on
 * EST (UTC-5), Kolkata is UTC+5:30 all year.
 */
describe('default posting times of a new channel', () => {
  let sim: TelegramSimulator;
  let owner: Browser;
  let member: Browser;
  let apiKey: string;
  const clock = createManualClock(Date.UTC(2026, 10, 29, 16, 0));
  afterAll(() => sim.close());

  const { t } = useTestApp(async () => {
    sim = await startTelegramSimulator();
    sim.addBot(TOKEN, { id: 123456, username: 'tidings_bot' });
    for (const [i, name] of CHATS.entries()) sim.addChat({ id: -1001000 - i, title: name, username: `acme_${name}`, admins: [123456] });
    return { clock, env: { PLATFORM_ORIGINS: `https://api.telegram.org=${sim.origin}`, SIGNUP: 'invite' } };
  });

  beforeAll(async () => {
    owner = await signUp(t.app, { email: 'owner@example.test', name: 'Olga', organization: 'Acme' });
    const orgId = (await owner.api('GET', '/public/v1/me')).json<{ organization: { id: string } }>().organization.id;
    apiKey = (await t.deps.services.organizations.createApiKey(orgId, 'script')).apiKey;
    const link = (await owner.api('POST', '/public/v1/invitations', { email: 'kay@example.test', role: 'admin' })).json<{ link: string }>().link;
    member = await signUp(t.app, { email: 'kay@example.test', invite: link.split('/').at(-1)! });
  });

  const connect = (who: Browser, chat: string) => who.api('POST', '/public/v1/social/telegram', { botToken: TOKEN, chatId: `@acme_${chat}` });

  it('a person in America/New_York gets 14:00, 17:30 and 22:00 UTC (09:00, 12:30, 17:00 local)', async () => {
    expect((await owner.api('PUT', '/public/v1/me', { timezone: 'America/New_York' })).statusCode).toBe(200);
    const res = await connect(owner, 'newyork');
    expect(res.statusCode).toBe(201);
    expect(times(res)).toEqual([14 * 60, 17 * 60 + 30, 22 * 60]);
    // the free slot is now one of them, never 02:00 UTC (21:00 in New York) as before
    const id = res.json<{ id: string }>().id;
    expect((await owner.api('GET', `/public/v1/find-slot/${id}`)).json()).toEqual({ date: '2026-11-29T17:30:00.000Z' });
  });

  it('a person in Asia/Kolkata (a half-hour offset) gets 03:30, 07:00 and 11:30 UTC', async () => {
    expect((await member.api('PUT', '/public/v1/me', { timezone: 'Asia/Kolkata' })).statusCode).toBe(200);
    const res = await connect(member, 'kolkata');
    expect(times(res)).toEqual([3 * 60 + 30, 7 * 60, 11 * 60 + 30]);
  });

  it('an API key (no person) takes the organisation owner’s zone', async () => {
    const res = await call(t.app, apiKey, { method: 'POST', url: '/public/v1/social/telegram', payload: { botToken: TOKEN, chatId: '@acme_bykey' } });
    expect(res.statusCode).toBe(201);
    expect(times(res)).toEqual([14 * 60, 17 * 60 + 30, 22 * 60]);
  });

  it('with no zone known anywhere, UTC: 09:00, 12:30, 17:00 UTC', async () => {
    await owner.api('PUT', '/public/v1/me', { timezone: null });
    await member.api('PUT', '/public/v1/me', { timezone: null });
    expect(times(await connect(member, 'nozone'))).toEqual([9 * 60, 12 * 60 + 30, 17 * 60]);
  });

  it('reconnecting keeps the posting times the channel has', async () => {
    const first = await connect(owner, 'again');
    const id = first.json<{ id: string }>().id;
    expect((await owner.api('PUT', `/public/v1/integrations/${id}`, { postingTimes: [{ time: 600 }] })).statusCode).toBe(200);
    await owner.api('PUT', '/public/v1/me', { timezone: 'Asia/Kolkata' });
    const again = await connect(owner, 'again');
    expect(again.json<{ id: string }>().id).toBe(id);
    expect(times(again)).toEqual([600]);
  });
});
