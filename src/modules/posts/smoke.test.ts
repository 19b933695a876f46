import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTelegramSimulator, type TelegramSimulator } from '../../platforms/telegram/telegram.simulator.js';
import { buildTestApp, call, type TestApp } from '../../../test/helpers.js';

let sim: TelegramSimulator;
let t: TestApp;
const TOKEN = '123456:AAbbCCddEEffGGhhIIjjKKllMMnnOOppQQ';
beforeAll(async () => {
  sim = await startTelegramSimulator();
  sim.addBot(TOKEN, { id: 123456, username: 'acme_bot' });
  sim.addChat({ id: -1001, title: 'Acme News', username: 'acmenews', type: 'channel', admins: [123456] });
  t = await buildTestApp({ env: { PLATFORM_ORIGINS: `https://api.telegram.org=${sim.origin}` }, startWorker: true });
});
afterAll(async () => {
  await t?.close();
  await sim?.close();
});

it('publishes', async () => {
  const org = await t.createOrg();
  const ch = await call(t.app, org.apiKey, { method: 'POST', url: '/public/v1/social/telegram', payload: { botToken: TOKEN, chatId: '@acmenews' } });
  expect(ch.statusCode).toBe(201);
  const id = ch.json<{ id: string }>().id;
  const res = await call(t.app, org.apiKey, { method: 'POST', url: '/public/v1/posts', payload: { type: 'now', shortLink: false, tags: [], posts: [{ integration: { id }, value: [{ content: 'Hello', image: [] }, { content: 'Reply', image: [] }] }] } });
  console.log(res.statusCode, res.body);
  const postId = res.json<{ postId: string }[]>()[0]!.postId;
  for (let i = 0; i < 50; i++) {
    const p = await call(t.app, org.apiKey, { method: 'GET', url: `/public/v1/posts/${postId}` });
    const b = p.json<{ state: string; thread: { state: string }[] }>();
    if (b.state !== 'QUEUE' && b.thread.every((x) => x.state !== 'QUEUE')) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const p = await call(t.app, org.apiKey, { method: 'GET', url: `/public/v1/posts/${postId}` });
  console.log(p.body);
  console.log(JSON.stringify(sim.messages));
});
