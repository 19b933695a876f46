import { instantFromZone, partsInZone } from '../../lib/time.js';

/**
 * A channel's posting time slots are minutes after 00:00 UTC (API.md §5, `postingTimes`). People
 * see and type them as wall-clock times in their own zone. A zone's offset moves with daylight
 * saving, so the conversion is made for one day (today by default): the slot stays fixed in UTC.
 */

const pad = (n: number) => String(n).padStart(2, '0');

/** The UTC day (YYYY-MM-DD) of `on`. */
function utcDay(on: Date): string {
  return on.toISOString().slice(0, 10);
}

/** `HH:MM` of a slot in UTC. */
export function utcTimeOfSlot(minutes: number): string {
  return `${pad(Math.floor(minutes / 60))}:${pad(minutes % 60)}`;
}

/** The instant of a slot on the UTC day of `on` (for hover titles and zone conversion). */
export function slotInstant(minutes: number, on: Date = new Date()): string {
  return new Date(Date.parse(`${utcDay(on)}T00:00:00.000Z`) + minutes * 60_000).toISOString();
}

/** The wall-clock time (`HH:MM`) a slot falls at in `timeZone`, on the day of `on`. */
export function slotToZoneTime(minutes: number, timeZone: string, on: Date = new Date()): string {
  return partsInZone(slotInstant(minutes, on), timeZone).time;
}

/** The slot (minutes after 00:00 UTC) of a wall-clock time `HH:MM` in `timeZone`, on the day of `on` there. */
export function zoneTimeToSlot(time: string, timeZone: string, on: Date = new Date()): number {
  if (!/^\d{2}:\d{2}$/.test(time)) throw new RangeError(`Not a time of day: ${time}`);
  const day = partsInZone(on.toISOString(), timeZone).date;
  const at = new Date(instantFromZone(day, time, timeZone));
  return at.getUTCHours() * 60 + at.getUTCMinutes();
}

/** Slots without repeats, ordered by the time they show at in `timeZone`. */
export function orderSlots(slots: readonly number[], timeZone: string, on: Date = new Date()): number[] {
  return [...new Set(slots)].sort((a, b) => slotToZoneTime(a, timeZone, on).localeCompare(slotToZoneTime(b, timeZone, on)) || a - b);
}
