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
      // a blip costs a second or two; later retries back off from 30 s
      publish: expect.objectContaining({ retryFirstMs: 1000, retryBaseMs: 30_000, maxAttempts: 6 }),
      autopilot: { seriesExtendMs: 900_000, evergreenFillMs: 600_000, feedCheckMs: 60_000, importBackgroundRows: 2000 },
    });
  });

  it('maps the autopilot intervals and refuses a zero', () => {
    const c = loadConfig({ SERIES_EXTEND_INTERVAL_SECONDS: '60', EVERGREEN_FILL_INTERVAL_SECONDS: '30', FEED_CHECK_INTERVAL_SECONDS: '5', IMPORT_BACKGROUND_ROWS: '100' });
    expect(c.autopilot).toEqual({ seriesExtendMs: 60_000, evergreenFillMs: 30_000, feedCheckMs: 5_000, importBackgroundRows: 100 });
    expect(() => loadConfig({ FEED_CHECK_INTERVAL_SECONDS: '0' })).toThrow(/FEED_CHECK_INTERVAL_SECONDS/);
    expect(() => loadConfig({ IMPORT_BACKGROUND_ROWS: 'many' })).toThrow(/IMPORT_BACKGROUND_ROWS/);
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

  describe('S3 media storage', () => {
    it('is off without S3_BUCKET and gives the documented defaults with it', () => {
      expect(loadConfig({}).s3).toBeUndefined();
      expect(loadConfig({ S3_BUCKET: 'media' }).s3).toEqual({
        bucket: 'media',
        region: 'us-east-1',
        endpoint: undefined,
        forcePathStyle: false,
        credentials: undefined,
        publicUrl: undefined,
        presignSeconds: 3600,
      });
    });

    it('maps every variable and trims the URLs', () => {
      const s3 = loadConfig({
        S3_BUCKET: 'tidings-media',
        S3_ENDPOINT: 'http://127.0.0.1:9000/',
        S3_REGION: 'eu-central-1',
        S3_ACCESS_KEY_ID: 'AKID',
        S3_SECRET_ACCESS_KEY: 'secret',
        S3_FORCE_PATH_STYLE: 'true',
        S3_PUBLIC_URL: 'https://cdn.example.com/media/',
        S3_PRESIGN_SECONDS: '600',
      }).s3;
      expect(s3).toEqual({
        bucket: 'tidings-media',
        region: 'eu-central-1',
        endpoint: 'http://127.0.0.1:9000',
        forcePathStyle: true,
        credentials: { accessKeyId: 'AKID', secretAccessKey: 'secret' },
        publicUrl: 'https://cdn.example.com/media',
        presignSeconds: 600,
      });
    });

    it('names the variable of a wrong value or combination', () => {
      expect(() => loadConfig({ S3_BUCKET: 'media', S3_ACCESS_KEY_ID: 'AKID' })).toThrow(/S3_SECRET_ACCESS_KEY: required when S3_ACCESS_KEY_ID/);
      expect(() => loadConfig({ S3_BUCKET: 'media', S3_SECRET_ACCESS_KEY: 'x' })).toThrow(/S3_ACCESS_KEY_ID: required when S3_SECRET_ACCESS_KEY/);
      expect(() => loadConfig({ S3_BUCKET: 'media', S3_ENDPOINT: 'not a url' })).toThrow(/S3_ENDPOINT/);
      expect(() => loadConfig({ S3_BUCKET: 'media', S3_PUBLIC_URL: 'ftp://cdn.example.com' })).toThrow(/S3_PUBLIC_URL/);
      expect(() => loadConfig({ S3_BUCKET: 'Media_Bucket' })).toThrow(/S3_BUCKET: must be a bucket name/);
      expect(() => loadConfig({ S3_BUCKET: 'media', S3_FORCE_PATH_STYLE: 'maybe' })).toThrow(/S3_FORCE_PATH_STYLE/);
      expect(() => loadConfig({ S3_BUCKET: 'media', S3_PRESIGN_SECONDS: '0' })).toThrow(/S3_PRESIGN_SECONDS/);
      expect(() => loadConfig({ S3_BUCKET: 'media', S3_PRESIGN_SECONDS: '604801' })).toThrow(/S3_PRESIGN_SECONDS/);
    });

    it('refuses S3 settings without a bucket rather than storing media on local disk', () => {
      expect(() => loadConfig({ S3_ENDPOINT: 'http://127.0.0.1:9000' })).toThrow(/S3_BUCKET: required when S3_ENDPOINT is set/);
      expect(() => loadConfig({ S3_ACCESS_KEY_ID: 'a', S3_SECRET_ACCESS_KEY: 'b' })).toThrow(/S3_BUCKET: required when S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY are set/);
    });
  });
});
