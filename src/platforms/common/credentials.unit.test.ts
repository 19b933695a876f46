import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { PlatformError } from '../platform.js';
import { readCredentials, StoredOAuthTokens, storedText, storedTextOrEmpty } from './credentials.js';

const Schema = z.object({
  accessToken: z.string().min(1),
  userId: z.string().min(1),
  username: z.string().nullish().transform((v) => v ?? null),
  expiresAt: z.number().optional(),
});

function failure(credentials: Record<string, unknown>, platform?: string): PlatformError {
  try {
    readCredentials({ credentials }, Schema, platform);
  } catch (e) {
    if (e instanceof PlatformError) return e;
    throw e;
  }
  throw new Error('readCredentials did not throw');
}

describe('readCredentials', () => {
  it('returns the parsed, typed credentials (defaults and transforms applied, unknown keys dropped)', () => {
    const c = readCredentials({ credentials: { accessToken: 't', userId: 'u1', extra: 1 } }, Schema);
    expect(c).toEqual({ accessToken: 't', userId: 'u1', username: null });
    expectTypeOf(c).toEqualTypeOf<{ accessToken: string; userId: string; username: string | null; expiresAt?: number | undefined }>();
  });

  it('a missing field asks for a reconnect and names the field', () => {
    const e = failure({ accessToken: 't' }, 'Telegram');
    expect({ kind: e.kind, field: e.details.field, message: e.message }).toEqual({
      kind: 'reconnect_required',
      field: 'userId',
      message: 'Stored Telegram credentials are incomplete (`userId` is missing): reconnect the channel',
    });
  });

  it('an empty or mistyped field is invalid, also a reconnect', () => {
    expect(failure({ accessToken: '', userId: 'u' })).toMatchObject({ kind: 'reconnect_required', details: { field: 'accessToken' }, message: 'Stored credentials are incomplete (`accessToken` is invalid): reconnect the channel' });
    expect(failure({ accessToken: 't', userId: 'u', expiresAt: 'soon' })).toMatchObject({ kind: 'reconnect_required', details: { field: 'expiresAt' } });
  });

  it('names nested fields by their path', () => {
    const Nested = z.object({ app: z.object({ clientId: z.string() }) });
    try {
      readCredentials({ credentials: { app: {} } }, Nested, 'Mastodon');
      expect.unreachable();
    } catch (e) {
      expect(e).toMatchObject({ kind: 'reconnect_required', details: { field: 'app.clientId' }, message: 'Stored Mastodon credentials are incomplete (`app.clientId` is missing): reconnect the channel' });
    }
  });

  it('a refinement of the whole object has no field', () => {
    const Whole = z.object({ a: z.string().optional(), b: z.string().optional() }).refine((c) => c.a ?? c.b, 'a or b');
    try {
      readCredentials({ credentials: {} }, Whole);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(PlatformError);
      expect(e).toMatchObject({ kind: 'reconnect_required', details: {} });
      expect((e as PlatformError).details.field).toBeUndefined();
    }
  });
});

describe('the stored-credential pieces', () => {
  const Stored = StoredOAuthTokens.extend({ userId: storedText, login: storedTextOrEmpty });

  it('an OAuth grant without refresh token or expiry reads them as null; an absent optional text as empty', () => {
    expect(readCredentials({ credentials: { accessToken: 'a', userId: 'u' } }, Stored)).toEqual({ accessToken: 'a', refreshToken: null, expiresAt: null, userId: 'u', login: '' });
    expect(readCredentials({ credentials: { accessToken: 'a', refreshToken: 'r', expiresAt: '2026-12-01T00:00:00.000Z', userId: 'u', login: 'me' } }, Stored)).toEqual({
      accessToken: 'a',
      refreshToken: 'r',
      expiresAt: '2026-12-01T00:00:00.000Z',
      userId: 'u',
      login: 'me',
    });
  });

  it('an empty access token or a missing required field asks for a reconnect naming it', () => {
    expect(() => readCredentials({ credentials: { accessToken: '', userId: 'u' } }, Stored, 'Kick')).toThrow(expect.objectContaining({ kind: 'reconnect_required', details: { field: 'accessToken' } }));
    expect(() => readCredentials({ credentials: { accessToken: 'a' } }, Stored, 'Kick')).toThrow(expect.objectContaining({ kind: 'reconnect_required', details: { field: 'userId' } }));
  });
});
