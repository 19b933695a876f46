import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../config.js';
import { deliveryBody, retryDelayMs, WEBHOOK_MAX_ATTEMPTS } from './delivery.js';
import { newWebhookSecret } from '../../core/webhooks/receiver.testkit.js';
import { signatureHeader, signPayload } from './send.js';

describe('webhook signatures', () => {
  it('are the Standard Webhooks reference signature, one per secret', () => {
    const secret = newWebhookSecret();
    const previous = newWebhookSecret();
    const at = new Date(Date.UTC(2026, 10, 25, 12, 0, 0));
    const body = deliveryBody({ id: 'evt', type: 'webhook.test', createdAt: at, payload: { a: 'é' } });
    const ts = at.getTime() / 1000;
    expect(`v1,${signPayload(secret, 'msg_1', ts, body)}`).toBe(new Webhook(secret).sign('msg_1', at, body));
    expect(signatureHeader([secret, previous], 'msg_1', ts, body)).toBe(`${new Webhook(secret).sign('msg_1', at, body)} ${new Webhook(previous).sign('msg_1', at, body)}`);
    // Any change to id, time or body changes it.
    expect(signPayload(secret, 'msg_2', ts, body)).not.toBe(signPayload(secret, 'msg_1', ts, body));
    expect(signPayload(secret, 'msg_1', ts + 1, body)).not.toBe(signPayload(secret, 'msg_1', ts, body));
    expect(signPayload(secret, 'msg_1', ts, `${body} `)).not.toBe(signPayload(secret, 'msg_1', ts, body));
  });

  it('cover the body as sent: id, type, ISO timestamp and data', () => {
    const at = new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 6));
    expect(JSON.parse(deliveryBody({ id: 'e1', type: 'post.published', createdAt: at, payload: { postId: 'p' } }))).toEqual({
      id: 'e1',
      type: 'post.published',
      timestamp: '2026-01-02T03:04:05.006Z',
      data: { postId: 'p' },
    });
  });
});

describe('webhook delivery settings', () => {
  it('default to 10 s, 32 in flight and 4 per webhook; the timeout stays within the lease', () => {
    expect(loadConfig({}).webhooks).toEqual({ timeoutMs: 10_000, concurrency: 64, perWebhook: 16 });
    expect(loadConfig({ WEBHOOK_TIMEOUT_SECONDS: '30' }).webhooks.timeoutMs).toBe(30_000);
    expect(() => loadConfig({ WEBHOOK_TIMEOUT_SECONDS: '31' })).toThrow(/WEBHOOK_TIMEOUT_SECONDS/);
    expect(() => loadConfig({ WEBHOOK_CONCURRENCY_PER_WEBHOOK: '0' })).toThrow(/WEBHOOK_CONCURRENCY_PER_WEBHOOK/);
  });

  it('retry 7 times, the first after 4.5–5.5 s', () => {
    expect(WEBHOOK_MAX_ATTEMPTS).toBe(8);
    expect(retryDelayMs(1, () => 0)).toBe(4_500);
    expect(retryDelayMs(1, () => 0.5)).toBe(5_000);
    expect(retryDelayMs(1, () => 0.999_999)).toBeLessThanOrEqual(5_500);
    expect(retryDelayMs(2, () => 0.5)).toBe(5 * 60_000);
    expect(retryDelayMs(8, () => 0.5)).toBeUndefined();
  });
});
