import { describe, expect, it } from 'vitest';
import { occurrencesOf } from './series-rule.js';
import type { SeriesRule } from './series.schemas.js';

const far = new Date(Date.UTC(2100, 0, 1));
const at = (rule: SeriesRule, n = 10) => occurrencesOf(rule, { fromIndex: 0, through: far, max: n }).occurrences.map((o) => o.at.toISOString());

describe('series rules', () => {
  it('keeps the local time across DST changes (Berlin, October and March)', () => {
    expect(at({ frequency: 'weekly', interval: 1, time: '09:00', timeZone: 'Europe/Berlin', startDate: '2026-10-19' }, 2)).toEqual(['2026-10-19T07:00:00.000Z', '2026-10-26T08:00:00.000Z']);
    expect(at({ frequency: 'weekly', interval: 1, time: '09:00', timeZone: 'Europe/Berlin', startDate: '2027-03-22' }, 2)).toEqual(['2027-03-22T08:00:00.000Z', '2027-03-29T07:00:00.000Z']);
  });

  it('a local time in the spring-forward gap takes the shifted time (02:30 Berlin on 2027-03-28 is 03:30 CEST)', () => {
    expect(at({ frequency: 'daily', interval: 1, time: '02:30', timeZone: 'Europe/Berlin', startDate: '2027-03-27', count: 3 })).toEqual([
      '2027-03-27T01:30:00.000Z',
      '2027-03-28T01:30:00.000Z',
      '2027-03-29T00:30:00.000Z',
    ]);
  });

  it('a local time that exists twice (autumn) is the second of the two (standard time), as luxon picks', () => {
    expect(at({ frequency: 'daily', interval: 1, time: '02:30', timeZone: 'Europe/Berlin', startDate: '2026-10-25', count: 1 })).toEqual(['2026-10-25T01:30:00.000Z']);
  });

  it('weekdays, month days (the last one too), until and count', () => {
    expect(at({ frequency: 'weekly', interval: 2, weekdays: ['MO', 'FR'], time: '12:00', timeZone: 'UTC', startDate: '2026-11-02', count: 4 })).toEqual([
      '2026-11-02T12:00:00.000Z',
      '2026-11-06T12:00:00.000Z',
      '2026-11-16T12:00:00.000Z',
      '2026-11-20T12:00:00.000Z',
    ]);
    expect(at({ frequency: 'monthly', interval: 1, monthDays: [-1], time: '18:00', timeZone: 'America/New_York', startDate: '2027-01-01', until: '2027-03-31' })).toEqual([
      '2027-01-31T23:00:00.000Z',
      '2027-02-28T23:00:00.000Z',
      '2027-03-31T22:00:00.000Z',
    ]);
  });

  it('indexes are stable: starting later gives the same occurrences with the same numbers', () => {
    const rule: SeriesRule = { frequency: 'daily', interval: 3, time: '07:15', timeZone: 'Asia/Kolkata', startDate: '2026-12-30' };
    const all = occurrencesOf(rule, { fromIndex: 0, through: new Date(Date.UTC(2027, 0, 30)) }).occurrences;
    const later = occurrencesOf(rule, { fromIndex: 4, through: new Date(Date.UTC(2027, 0, 30)) }).occurrences;
    expect(later).toEqual(all.slice(4));
    expect(occurrencesOf(rule, { fromIndex: 0, through: new Date(0), atLeast: 1 }).occurrences).toEqual(all.slice(0, 1));
  });
});
