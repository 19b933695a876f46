import { describe, expect, it } from 'vitest';
import { orderSlots, slotInstant, slotToZoneTime, utcTimeOfSlot, zoneTimeToSlot } from './postingTimes.js';

const SUMMER = new Date('2026-07-01T12:00:00.000Z');
const WINTER = new Date('2026-01-15T12:00:00.000Z');

describe('posting time slots: minutes after 00:00 UTC ⇄ wall-clock times in a zone', () => {
  it('shows a slot at its time in the zone, with that day’s offset', () => {
    expect(slotToZoneTime(7 * 60, 'Europe/Berlin', SUMMER)).toBe('09:00');
    expect(slotToZoneTime(7 * 60, 'Europe/Berlin', WINTER)).toBe('08:00');
    expect(slotToZoneTime(0, 'America/New_York', WINTER)).toBe('19:00');
    expect(slotToZoneTime(3 * 60 + 30, 'Asia/Kolkata', WINTER)).toBe('09:00');
    expect(slotToZoneTime(615, 'UTC', WINTER)).toBe('10:15');
  });

  it('turns a typed time into the slot, across midnight both ways', () => {
    expect(zoneTimeToSlot('09:00', 'Europe/Berlin', SUMMER)).toBe(7 * 60);
    expect(zoneTimeToSlot('09:00', 'Europe/Berlin', WINTER)).toBe(8 * 60);
    // 00:30 in Berlin (winter) is 23:30 UTC the day before
    expect(zoneTimeToSlot('00:30', 'Europe/Berlin', WINTER)).toBe(23 * 60 + 30);
    // 21:00 in New York (winter) is 02:00 UTC the next day
    expect(zoneTimeToSlot('21:00', 'America/New_York', WINTER)).toBe(2 * 60);
    expect(zoneTimeToSlot('09:00', 'Asia/Kolkata', WINTER)).toBe(3 * 60 + 30);
    expect(() => zoneTimeToSlot('9', 'UTC')).toThrow(RangeError);
  });

  it('round-trips every quarter hour of the day in several zones', () => {
    for (const zone of ['Europe/Berlin', 'America/Los_Angeles', 'Asia/Kolkata', 'Australia/Adelaide', 'UTC']) {
      for (let m = 0; m < 1440; m += 15) {
        const local = slotToZoneTime(m, zone, SUMMER);
        expect(zoneTimeToSlot(local, zone, SUMMER), `${zone} ${m}`).toBe(m);
      }
    }
  });

  it('orders slots by the time they show at (not by UTC minutes), without repeats', () => {
    // in New York (winter): 23:00 UTC → 18:00, 01:00 UTC → 20:00, 14:00 UTC → 09:00
    expect(orderSlots([23 * 60, 60, 14 * 60, 60], 'America/New_York', WINTER)).toEqual([14 * 60, 23 * 60, 60]);
  });

  it('names the UTC form of a slot', () => {
    expect(utcTimeOfSlot(425)).toBe('07:05');
    expect(slotInstant(425, WINTER)).toBe('2026-01-15T07:05:00.000Z');
  });
});
