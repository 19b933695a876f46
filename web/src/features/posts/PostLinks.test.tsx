import { screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { apiError, apiFetch, renderPage } from '../../test/kit.js';
import { PostLinks } from './PostLinks.js';

const fetchMock = vi.hoisted(() => {
  const fn = vi.fn<(input: RequestInfo | URL, init?: RequestInit) => Promise<Response>>();
  vi.stubGlobal('fetch', fn);
  return fn;
});

afterEach(() => fetchMock.mockReset());

const open = () => renderPage(<PostLinks postId="p1" />);

describe('the post page’s Links section', () => {
  it('each short link with where it goes (UTM added) and its clicks, people and bots apart', async () => {
    fetchMock.mockImplementation(
      apiFetch({
        'GET /posts/p1/links': () => ({
          links: [
            { id: 'l1', postId: 'p1', shortUrl: 'https://tidings.example.com/s/Ab3dE', originalUrl: 'https://acme.test/launch', targetUrl: 'https://acme.test/launch?utm_source=x&utm_medium=social', provider: 'builtin', clicks: 1, botClicks: 3, createdAt: '2026-11-30T09:00:00.000Z' },
            { id: 'l2', postId: 'p1', shortUrl: 'https://go.acme.test/q', originalUrl: 'https://acme.test/shop', targetUrl: 'https://acme.test/shop', provider: 'shortio', clicks: 1204, botClicks: 0, createdAt: '2026-11-30T09:00:00.000Z' },
          ],
        }),
      }),
    );
    open();
    const section = await screen.findByRole('region', { name: 'Links' });
    const [first, second] = within(section).getAllByRole('listitem');
    expect(within(first!).getByRole('link', { name: 'tidings.example.com/s/Ab3dE' }).getAttribute('href')).toBe('https://tidings.example.com/s/Ab3dE');
    expect(first!.textContent).toContain('goes to https://acme.test/launch?utm_source=x&utm_medium=social');
    expect(first!.textContent).toContain('(written as https://acme.test/launch)');
    expect(first!.textContent).toMatch(/Clicks\s*1 person/);
    expect(first!.textContent).toMatch(/Bot fetches\s*3/);
    expect(first!.textContent).toContain('by Tidings');
    expect(second!.textContent).toContain('by Short.io');
    expect(second!.textContent).toMatch(/Clicks\s*1,204 people/);
    // an outside provider reports clicks by people only: no bot figure is made up
    expect(second!.textContent).not.toContain('Bot fetches');
    // no UTM: the address is not repeated
    expect(second!.textContent).not.toContain('written as');
  });

  it('nothing at all when the post has no short links', async () => {
    let asked = false;
    fetchMock.mockImplementation(
      apiFetch({
        'GET /posts/p1/links': () => {
          asked = true;
          return { links: [] };
        },
      }),
    );
    const { container } = open();
    await vi.waitFor(() => expect(asked).toBe(true));
    await new Promise((r) => setTimeout(r, 20));
    expect(container.querySelector('section')).toBeNull();
    expect(screen.queryByText('Links')).toBeNull();
  });

  it('a failed read is said quietly, not as an alert', async () => {
    fetchMock.mockImplementation(apiFetch({ 'GET /posts/p1/links': () => apiError(503, 'SERVICE_UNAVAILABLE', 'The database is not available') }));
    open();
    expect((await screen.findByText(/could not be read/)).textContent).toContain('The database is not available');
    expect(screen.queryByRole('alert')).toBeNull();
  });
});
