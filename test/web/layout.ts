import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { screenshot } from './harness.js';

/**
 * The phone-width rules of the app (issue 28), measured in the browser: nothing scrolls sideways,
 * every pointer target is 44×44. Used by phone.browser.test.ts and the pages' own browser tests.
 */
/** WCAG 2.5.5 (target size, enhanced): a pointer target is at least 44 by 44 CSS pixels. */
export const TARGET = 44;

export interface Layout {
  scrollWidth: number;
  clientWidth: number;
  bodyScrollWidth: number;
  bodyClientWidth: number;
  /** what sticks out past the right edge of the window (for the failure message) */
  wide: string[];
  /** interactive elements smaller than TARGET × TARGET, described */
  small: string[];
}

/**
 * Measures the page in the browser (a string, so the test's TypeScript needs no DOM types):
 * - the document and the body scroll sideways when their scrollWidth exceeds their clientWidth;
 * - every visible interactive element (button, a[href], input, select, textarea, [role=tab],
 *   [role=button], and whatever else is a tab stop, as FullCalendar's posts and day links are)
 *   has a box of at least 44×44 px.
 * Exempt, as WCAG 2.5.5 exempts them:
 * - "inline" targets: a link shown inline inside a sentence or block of text (its parent holds
 *   more text than the link itself), e.g. "open the invitation link you were sent";
 * - a checkbox or radio button whose <label> (the element a finger presses) is 44×44 or more, and
 *   an input covered by such a label (the calendar's state chips draw a transparent input over the chip);
 * - what is not there for a pointer: hidden, zero-sized, visually hidden (1 px clip), or entirely above
 *   the page's top (the skip link waits there until a keyboard focuses it).
 */
export const MEASURE = `(() => {
  const TARGET = ${TARGET};
  const doc = document.documentElement;
  const describe = (el) => {
    const r = el.getBoundingClientRect();
    const name = (el.getAttribute('aria-label') || el.textContent || el.getAttribute('title') || el.getAttribute('name') || el.getAttribute('type') || '').trim().replace(/\\s+/g, ' ').slice(0, 40);
    const cls = typeof el.className === 'string' && el.className ? '.' + el.className.trim().split(/\\s+/).slice(0, 3).join('.') : '';
    return el.tagName.toLowerCase() + cls + ' "' + name + '" ' + Math.round(r.width) + 'x' + Math.round(r.height);
  };
  const visible = (el) => {
    const r = el.getBoundingClientRect();
    if (r.width <= 1 || r.height <= 1) return false;
    if (r.bottom + window.scrollY <= 0) return false;
    const s = getComputedStyle(el);
    if (s.visibility === 'hidden' || s.display === 'none') return false;
    if (s.clip === 'rect(0px, 0px, 0px, 0px)') return false;
    return el.checkVisibility ? el.checkVisibility({ opacityProperty: false, visibilityProperty: true }) : true;
  };
  const big = (r) => r.width >= TARGET - 0.5 && r.height >= TARGET - 0.5;
  const inline = (el) => {
    if (el.tagName !== 'A') return false;
    if (getComputedStyle(el).display !== 'inline') return false;
    const own = (el.textContent || '').trim().length;
    let block = el.parentElement;
    while (block && getComputedStyle(block).display === 'inline') block = block.parentElement;
    return !!block && (block.textContent || '').trim().length > own + 1;
  };
  const labelled = (el) => {
    if (el.tagName !== 'INPUT') return false;
    const label = el.closest('label') || (el.id ? document.querySelector('label[for="' + CSS.escape(el.id) + '"]') : null);
    return !!label && big(label.getBoundingClientRect());
  };
  const small = [];
  for (const el of document.querySelectorAll('button, a[href], input:not([type=hidden]), select, textarea, [role=tab], [role=button], [tabindex]:not([tabindex^="-"])')) {
    if (!visible(el) || inline(el) || labelled(el)) continue;
    if (!big(el.getBoundingClientRect())) small.push(describe(el));
  }
  const wide = [];
  for (const el of document.body.querySelectorAll('*')) {
    const r = el.getBoundingClientRect();
    if (r.right > doc.clientWidth + 0.5 && r.width > 0 && getComputedStyle(el).position !== 'fixed') {
      // report the outermost culprits only, not each of their children
      if (!wide.some((w) => w.el.contains(el))) wide.push({ el, text: describe(el) + ' right=' + Math.round(r.right) });
    }
    if (wide.length > 8) break;
  }
  return {
    scrollWidth: doc.scrollWidth, clientWidth: doc.clientWidth,
    bodyScrollWidth: document.body.scrollWidth, bodyClientWidth: document.body.clientWidth,
    wide: wide.map((w) => w.text), small,
  };
})()`;

/** Measures the page as it is now (after the next two frames: lazy chunks and layout settled). */
export async function measureLayout(page: { evaluate<T>(script: string): Promise<T> }): Promise<Layout> {
  await page.evaluate('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))');
  return page.evaluate<Layout>(MEASURE);
}

/**
 * Takes the screenshot `name` of `page` at phone width (390 px) and checks it there: nothing
 * scrolls sideways and no target whose description matches `targets` is under 44×44. The page
 * goes back to the desktop size afterwards.
 */
export async function checkAtPhoneWidth(page: Page, name: string, targets: RegExp) {
  await page.setViewportSize({ width: 390, height: 844 });
  try {
    await screenshot(page, name);
    const m = await measureLayout(page);
    expect(m.scrollWidth, m.wide.join('; ')).toBeLessThanOrEqual(m.clientWidth);
    expect(m.small.filter((s) => targets.test(s))).toEqual([]);
  } finally {
    await page.setViewportSize({ width: 1360, height: 860 });
  }
}

/** Settings → Approval rules in the app: an organisation-wide rule named `name`, shown once made. */
export async function addOrganisationRule(page: Page, name: string) {
  await page.goto('/settings/approvals');
  await page.getByRole('button', { name: 'New rule' }).click();
  const dialog = page.getByRole('dialog', { name: 'New rule' });
  await dialog.getByLabel('Name').fill(name);
  await dialog.getByRole('button', { name: 'Create rule' }).click();
  await expect.poll(() => page.getByRole('heading', { name }).count()).toBe(1);
}
