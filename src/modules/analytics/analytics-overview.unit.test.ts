import { describe, expect, it } from 'vitest';
import { csvField, excerptOf, summariseSeries, toCsv } from './analytics-overview.js';

const s = (label: string, ...totals: number[]) => ({ label, percentageChange: 0, data: totals.map((total, i) => ({ total, date: `2026-11-${String(i + 1).padStart(2, '0')}` })) });

describe('summariseSeries', () => {
  it('sums daily reach and impressions, and takes a platform engagement total as is', () => {
    expect(summariseSeries([s('Reach', 10, 20), s('Views', 5, 5), s('Engagements', 3, 4), s('New follows', 1)])).toEqual({ reach: 30, impressions: 10, engagement: 7 });
  });
  it('adds interactions into engagement when the platform reports no total', () => {
    expect(summariseSeries([s('Likes', 4), s('Reposts', 2), s('Replies', 1), s('Quotes', 0)])).toEqual({ reach: null, impressions: null, engagement: 7 });
  });
  it('answers null, not 0, for what the platform does not report', () => {
    expect(summariseSeries([s('Followers', 120), s('Following', 3), s('Posts', 9)])).toEqual({ reach: null, impressions: null, engagement: null });
    expect(summariseSeries([])).toEqual({ reach: null, impressions: null, engagement: null });
  });
  it('keeps a reported 0 as 0', () => {
    expect(summariseSeries([s('Likes', 0)]).engagement).toBe(0);
  });
});

describe('CSV', () => {
  it('quotes fields with commas, quotes and line breaks, doubling quotes', () => {
    expect(csvField('plain')).toBe('plain');
    expect(csvField('Acme, Inc.')).toBe('"Acme, Inc."');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
    expect(csvField('cr\rhere')).toBe('"cr\rhere"');
  });
  it('writes numbers plainly and nothing for null', () => {
    expect(csvField(42)).toBe('42');
    expect(csvField(0)).toBe('0');
    expect(csvField(null)).toBe('');
    expect(csvField(Number.NaN)).toBe('');
  });
  it('defuses text a spreadsheet would run as a formula', () => {
    expect(csvField('=HYPERLINK("x")')).toBe(`"'=HYPERLINK(""x"")"`);
    expect(csvField('+1')).toBe("'+1");
    expect(csvField('@me')).toBe("'@me");
    expect(csvField('-5')).toBe("'-5");
  });
  it('joins rows with CRLF and ends with one', () => {
    expect(toCsv([['a', 'b'], [1, null]])).toBe('a,b\r\n1,\r\n');
  });
});

describe('excerptOf', () => {
  it('drops markup, decodes the common entities and shortens', () => {
    expect(excerptOf('<p>Spring <strong>sale</strong> &amp; more</p><p>Second</p>')).toBe('Spring sale & more Second');
    expect(excerptOf('<p>' + 'a'.repeat(200) + '</p>', 10)).toBe('aaaaaaaaa…');
  });
});
