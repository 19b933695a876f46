import { describe, expect, it } from 'vitest';
import type { PlatformResponse } from '../platform.js';
import { metaGraphError, metaRetryAfterSeconds } from './meta-graph.js';

const answer = (status: number, error: Record<string, unknown> | null, headers: Record<string, string> = {}): PlatformResponse => ({
  status,
  headers,
  body: error ? { error: { message: 'msg', type: 'OAuthException', fbtrace_id: 'Abc', ...error } } : { id: '1' },
});

describe('Meta Graph errors', () => {
  it('classifies the codes Meta documents', () => {
    expect(metaGraphError(answer(200, null))).toBeUndefined();
    expect(metaGraphError(answer(400, { code: 190, error_subcode: 463 }))?.kind).toBe('auth_expired');
    expect(metaGraphError(answer(400, { code: 190, error_subcode: 460 }))?.kind).toBe('reconnect_required');
    expect(metaGraphError(answer(400, { code: 102, message: 'Error validating access token: Session has expired' }))?.kind).toBe('reconnect_required');
    for (const code of [4, 17, 32, 613, 80001]) expect(metaGraphError(answer(400, { code }))?.kind, String(code)).toBe('rate_limited');
    expect(metaGraphError(answer(500, { code: 2, is_transient: true }))?.kind).toBe('transient');
    expect(metaGraphError(answer(400, { code: 1 }))?.kind).toBe('transient');
    const policy = metaGraphError(answer(400, { code: 368, error_user_title: 'Blocked', error_user_msg: 'This looks like spam' }))!;
    expect({ kind: policy.kind, message: policy.message, code: policy.details.platformCode }).toEqual({ kind: 'rejected', message: 'Blocked: This looks like spam', code: '368' });
    // errors inside an HTTP 200 count
    expect(metaGraphError(answer(200, { code: 100, message: 'Invalid parameter' }))?.kind).toBe('rejected');
    expect(metaGraphError({ status: 503, headers: {}, body: 'Service Unavailable' })?.kind).toBe('transient');
  });

  it('takes the wait from the Business Use Case header (minutes), else Retry-After', () => {
    const buc = JSON.stringify({ '1234': [{ type: 'pages', call_count: 100, total_cputime: 20, total_time: 30, estimated_time_to_regain_access: 7 }] });
    expect(metaRetryAfterSeconds({ 'x-business-use-case-usage': buc })).toBe(420);
    expect(metaRetryAfterSeconds({ 'retry-after': '30' })).toBe(30);
    expect(metaRetryAfterSeconds({ 'x-business-use-case-usage': 'not json' })).toBeUndefined();
    expect(metaGraphError(answer(400, { code: 80001 }, { 'x-business-use-case-usage': buc }))?.details.retryAfterSeconds).toBe(420);
  });
});
