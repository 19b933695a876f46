import { render } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { contentText, excerpt, RichContent, safeHref } from './RichContent.js';

describe('post content shown safely', () => {
  it('keeps formatting and drops scripts, handlers, styles, embedded objects and images', () => {
    const html =
      '<p>Hello <strong>world</strong> <em onclick="alert(1)">now</em></p>' +
      '<script>window.hacked = true</script><style>body{display:none}</style>' +
      '<img src="x" onerror="window.hacked = true"><object data="x.swf"></object>' +
      '<ul><li>one</li><li>two</li></ul><h1>Big</h1>';
    const { container } = render(<RichContent content={html} />);
    expect(container.querySelector('strong')?.textContent).toBe('world');
    expect(container.querySelector('em')?.getAttribute('onclick')).toBeNull();
    expect(container.querySelectorAll('li')).toHaveLength(2);
    for (const tag of ['script', 'style', 'img', 'object', 'h1']) expect(container.querySelector(tag)).toBeNull();
    // a post's headings sit below the page's own
    expect(container.querySelector('h3')?.textContent).toBe('Big');
    expect(container.textContent).not.toContain('hacked');
    expect((window as unknown as { hacked?: boolean }).hacked).toBeUndefined();
    expect(container.querySelector('[onerror], [onclick], [style]')).toBeNull();
  });

  it('keeps web links (opened apart) and turns any other target into text', () => {
    const html = '<p><a href="https://acme.example/x">site</a> <a href="javascript:alert(1)">bad</a> <a href="data:text/html,hi">data</a> <a href="/relative">rel</a></p>';
    const { container } = render(<RichContent content={html} />);
    const links = container.querySelectorAll('a');
    expect(links).toHaveLength(1);
    expect(links[0]!.getAttribute('href')).toBe('https://acme.example/x');
    expect(links[0]!.getAttribute('rel')).toContain('noopener');
    expect(container.textContent).toContain('bad');
    expect(safeHref('JaVaScRiPt:alert(1)')).toBeUndefined();
    expect(safeHref('mailto:a@b.example')).toBe('mailto:a@b.example');
  });

  it('shows plain text as written, markup-looking text included, with its line breaks', () => {
    const { container } = render(<RichContent content={'Line one\nLine two & 3 < 4'} />);
    const p = container.querySelector('p.plain-text');
    expect(p?.textContent).toBe('Line one\nLine two & 3 < 4');
  });

  it('text of HTML for excerpts: paragraphs and breaks become line breaks, scripts vanish', () => {
    expect(contentText('<p>One</p><p>Two<br>Three</p><script>x()</script>')).toBe('One\nTwo\nThree');
    expect(excerpt('<p>' + 'word '.repeat(50) + '</p>', 20)).toMatch(/^word word word word…$/);
  });
});
