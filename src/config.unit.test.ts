import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.js';

describe('loadConfig', () => {
  it('gives the documented defaults', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      port: 3000,
      host: '127.0.0.1',
      dataDir: './data',
      databaseUrl: undefined,
      publicUrl: 'http://localhost:3000',
      rateLimit: { max: 90, windowSeconds: 3600 },
      logLevel: 'info',
    });
  });

  it('names the variable of a wrong value', () => {
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(/PORT/);
    expect(() => loadConfig({ API_RATE_LIMIT: '0' })).toThrow(/API_RATE_LIMIT/);
    expect(() => loadConfig({ DATABASE_URL: 'mysql://x' })).toThrow(/DATABASE_URL: must start with postgres/);
    expect(() => loadConfig({ LOG_LEVEL: 'loud' })).toThrow(/LOG_LEVEL/);
    expect(() => loadConfig({ PUBLIC_URL: 'ftp://x' })).toThrow(/PUBLIC_URL/);
    expect(() => loadConfig({ TRUST_PROXY: 'maybe' })).toThrow(/TRUST_PROXY/);
  });

  it('lists every problem at once', () => {
    try {
      loadConfig({ PORT: '-1', API_RATE_WINDOW_SECONDS: 'x' });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      expect((e as ConfigError).problems.map((p) => p.split(':')[0])).toEqual(['PORT', 'API_RATE_WINDOW_SECONDS']);
    }
  });

  it('requires the credentials secret in PostgreSQL mode only', () => {
    expect(() => loadConfig({ DATABASE_URL: 'postgres://h/db' })).toThrow(/CREDENTIALS_SECRET: required when DATABASE_URL/);
    expect(loadConfig({ DATABASE_URL: 'postgres://h/db', CREDENTIALS_SECRET: 'x'.repeat(32) }).databaseUrl).toBe('postgres://h/db');
    expect(() => loadConfig({ CREDENTIALS_SECRET: 'short' })).toThrow(/CREDENTIALS_SECRET: must be at least 32/);
  });

  it('treats empty values as unset and trims PUBLIC_URL', () => {
    expect(loadConfig({ PORT: '', PUBLIC_URL: 'https://tidings.example.com/' })).toMatchObject({
      port: 3000,
      publicUrl: 'https://tidings.example.com',
    });
  });
});
