import { describe, expect, it } from 'vitest';
import type { Resolver } from '../../lib/safe-address.js';
import { assertDeliverableUrl, UndeliverableUrlError } from './target.js';

const names: Record<string, string[]> = {
  'public.example': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
  'v6-private.example': ['93.184.216.34', 'fd00::1'],
  'metadata.example': ['169.254.169.254'],
  'empty.example': [],
};
const calls: string[] = [];
const resolve: Resolver = (hostname) => {
  calls.push(hostname);
  const addresses = names[hostname];
  if (!addresses) return Promise.reject(Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' }));
  return Promise.resolve(addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })));
};

const reason = async (url: string, allowPrivate = false) => {
  try {
    await assertDeliverableUrl(url, { allowPrivate, resolve });
    return 'ok';
  } catch (e) {
    expect(e).toBeInstanceOf(UndeliverableUrlError);
    return (e as Error).message;
  }
};

describe('assertDeliverableUrl', () => {
  it('accepts http(s) URLs whose every address is public, and answers the parsed URL', async () => {
    const url = await assertDeliverableUrl('https://public.example:8443/in?x=1', { allowPrivate: false, resolve });
    expect(url.href).toBe('https://public.example:8443/in?x=1');
    expect(await reason('http://93.184.216.34/')).toBe('ok');
    expect(await reason('http://[2606:2800:220:1:248:1893:25c8:1946]/')).toBe('ok');
  });

  it('refuses other schemes, credentials, private literals and names with any private address', async () => {
    expect(await reason('ftp://public.example/')).toBe('only http and https URLs are allowed, not ftp');
    expect(await reason('file:///etc/passwd')).toBe('only http and https URLs are allowed, not file');
    expect(await reason('https://user@public.example/')).toBe('URLs with credentials are not allowed');
    expect(await reason('https://:pw@public.example/')).toBe('URLs with credentials are not allowed');
    expect(await reason('http://0.0.0.0/')).toBe('0.0.0.0 is a private or reserved address, which is not allowed');
    expect(await reason('http://100.64.0.1/')).toBe('100.64.0.1 is a private or reserved address, which is not allowed');
    expect(await reason('http://[fe80::1]/')).toBe('fe80::1 is a private or reserved address, which is not allowed');
    // Decimal and hex forms of 127.0.0.1 are normalised by the URL parser before the check.
    expect(await reason('http://2130706433/')).toBe('127.0.0.1 is a private or reserved address, which is not allowed');
    expect(await reason('http://0x7f.1/')).toBe('127.0.0.1 is a private or reserved address, which is not allowed');
    expect(await reason('https://v6-private.example/')).toBe('v6-private.example resolves to fd00::1, a private or reserved address, which is not allowed');
    expect(await reason('https://metadata.example/')).toBe('metadata.example resolves to 169.254.169.254, a private or reserved address, which is not allowed');
    expect(await reason('https://empty.example/')).toBe('empty.example could not be resolved');
    expect(await reason('https://missing.example/')).toBe('missing.example could not be resolved');
    expect(await reason('https://nodots/')).toBe('nodots is not a valid host name');
    expect(await reason('::not a url')).toBe('not a valid URL');
  });

  it('ALLOW_PRIVATE_TARGETS lifts the address rules only, without resolving', async () => {
    calls.length = 0;
    expect(await reason('http://127.0.0.1:3000/hook', true)).toBe('ok');
    expect(await reason('http://metadata.example/', true)).toBe('ok');
    expect(calls).toEqual([]);
    expect(await reason('ftp://127.0.0.1/', true)).toBe('only http and https URLs are allowed, not ftp');
    expect(await reason('http://u:p@127.0.0.1/', true)).toBe('URLs with credentials are not allowed');
  });
});
