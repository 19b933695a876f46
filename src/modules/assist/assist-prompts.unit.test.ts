import { describe, expect, it } from 'vitest';
import { createPlatformRegistry } from '../../platforms/registry.js';
import { PLATFORM_IDENTIFIERS } from '../../platforms/platform.js';
import { aimFor, ASSIST_LIMITS, cleanAnswer, parseHashtags, PLATFORM_STYLES, PROMPTS, splitThread } from './assist-prompts.js';

const adapters = createPlatformRegistry({ apps: {} });
const text = (m: { content: unknown }) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content));

describe('platform styles', () => {
  it('has a style for every platform, aiming at or under its limit', () => {
    for (const id of PLATFORM_IDENTIFIERS) {
      expect(PLATFORM_STYLES[id].style.length, id).toBeGreaterThan(10);
      const max = adapters[id].metadata.text.maxLength;
      expect(aimFor(id, max), id).toBeLessThanOrEqual(max);
    }
    expect(aimFor('x', 280)).toBe(280);
    expect(aimFor('linkedin', 3000)).toBe(1300);
    expect(aimFor(undefined, 10_000)).toBe(ASSIST_LIMITS.genericAim);
  });
});

describe('prompts', () => {
  const x = { platform: { identifier: 'x' as const, displayName: 'X' }, maxLength: 280, aim: 280, unit: 'weighted characters' };

  it("tell the model the platform, its style and its limit", () => {
    const [system, user] = PROMPTS.rewrite({ content: 'Hello', instructions: 'shorter' }, x);
    expect(text(system!)).toContain('Platform: X. X (Twitter): short');
    expect(text(system!)).toContain('Hard limit: at most 280 weighted characters');
    expect(text(user!)).toContain('Also: shorter');
    const linkedin = PROMPTS.draft({ brief: 'b' }, { platform: { identifier: 'linkedin', displayName: 'LinkedIn' }, maxLength: 3000, aim: 1300, unit: 'characters' });
    expect(text(linkedin[0]!)).toContain('about 1300 characters or less; hard limit 3000 characters');
  });

  it('ask a thread in parts separated by ---, each part under the limit', () => {
    const [system] = PROMPTS.thread({ content: 'c' }, { ...x, maxItems: 25 });
    expect(text(system!)).toContain('Hard limit for EACH part: at most 280');
    expect(text(system!)).toContain('a line holding only ---');
  });

  it('send the image as an image_url part', () => {
    const [, user] = PROMPTS.altText({ imageDataUrl: 'data:image/png;base64,AAA' }, { maxLength: 1000, aim: 1000, unit: 'characters' });
    expect(user!.content).toContainEqual({ type: 'image_url', image_url: { url: 'data:image/png;base64,AAA' } });
  });

  it('shorten with the count and the limit, after the first answer', () => {
    const first = PROMPTS.rewrite({ content: 'c' }, x);
    const again = PROMPTS.shorten(first, 'too long', { length: 399, maxLength: 280, unit: 'weighted characters' });
    expect(again.slice(0, first.length)).toEqual(first);
    expect(again.at(-2)).toEqual({ role: 'assistant', content: 'too long' });
    expect(text(again.at(-1)!)).toContain('That text is 399 weighted characters; the limit is 280');
  });
});

describe('reading answers', () => {
  it('cleans fences, a "Here is" line and wrapping quotes', () => {
    expect(cleanAnswer('```\nHello\n```')).toBe('Hello');
    expect(cleanAnswer("Here's a rewrite for X:\n\nHello")).toBe('Hello');
    expect(cleanAnswer('"Hello"')).toBe('Hello');
    expect(cleanAnswer('"a" and "b"')).toBe('"a" and "b"');
  });

  it('splits threads on --- lines and caps the parts', () => {
    expect(splitThread('one\n---\ntwo\n  ----  \nthree\n---\n')).toEqual(['one', 'two', 'three']);
    expect(splitThread('a\n---\nb\n---\nc', 2)).toEqual(['a', 'b']);
    expect(splitThread('no separators')).toEqual(['no separators']);
  });

  it('reads hashtags, unique, at most count; bare words become tags', () => {
    expect(parseHashtags('#One #two #one #Drei_3 #ünïcode', 10)).toEqual(['#One', '#two', '#Drei_3', '#ünïcode']);
    expect(parseHashtags('#a #b #c', 2)).toEqual(['#a', '#b']);
    expect(parseHashtags('spring, sale', 5)).toEqual(['#spring', '#sale']);
  });
});
