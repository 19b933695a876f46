import { describe, expect, it } from 'vitest';
import { formatDateTime, instantFromZone, partsInZone, utcTitle } from './time.js';

describe('times in the person’s zone, UTC as the truth', () => {
  it('reads an instant’s wall clock in a zone and back, across a DST change', () => {
    // 2026-03-29 01:00 UTC is when Europe/Berlin moves from +01:00 to +02:00
    expect(partsInZone('2026-03-29T00:30:00.000Z', 'Europe/Berlin')).toEqual({ date: '2026-03-29', time: '01:30' });
    expect(partsInZone('2026-03-29T01:30:00.000Z', 'Europe/Berlin')).toEqual({ date: '2026-03-29', time: '03:30' });
    expect(instantFromZone('2026-03-29', '03:30', 'Europe/Berlin')).toBe('2026-03-29T01:30:00.000Z');
    expect(instantFromZone('2026-07-01', '09:00', 'America/New_York')).toBe('2026-07-01T13:00:00.000Z');
    expect(instantFromZone('2026-12-01', '09:00', 'Asia/Kolkata')).toBe('2026-12-01T03:30:00.000Z');
  });

  it('shows the UTC form for hover titles and formats in the zone', () => {
    expect(utcTitle('2026-07-01T13:05:00.000Z')).toBe('2026-07-01 13:05 UTC');
    expect(formatDateTime('2026-07-01T13:05:00.000Z', 'America/New_York', { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' })).toBe('09:05');
  });
});
