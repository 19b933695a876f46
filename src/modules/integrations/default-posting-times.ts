/**
 * The posting times a newly connected channel starts with: hours people post at (09:00, 12:30,
 * 17:00) on the clock of the person who connects it. Slots are stored as minutes after 00:00 UTC
 * (the Postiz wire format), so the local hours are converted with the zone's offset of today:
 * after a daylight-saving change they drift by an hour, as every slot set by hand does.
 */
export const LOCAL_DEFAULT_TIMES = ['09:00', '12:30', '17:00'] as const;

const DAY_MS = 86_400_000;

/** Whether `timeZone` is an IANA zone this runtime knows. */
export function isKnownTimeZone(timeZone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone });
    return true;
  } catch {
    return false;
  }
}

/** The zone's wall clock at `at`, read as if it were UTC (so subtracting `at` gives the offset). */
function wallClockAsUtc(at: number, timeZone: string): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(new Date(at));
  const n = (type: string) => Number(parts.find((p) => p.type === type)!.value);
  return Date.UTC(n('year'), n('month') - 1, n('day'), n('hour'), n('minute'), n('second'));
}

/** The instant at which the clock in `timeZone` shows `minutes` after midnight on the local day of `now`. */
function instantOfLocalTime(now: number, minutes: number, timeZone: string): number {
  const localMidnight = Math.floor(wallClockAsUtc(now, timeZone) / DAY_MS) * DAY_MS;
  const wall = localMidnight + minutes * 60_000;
  // Two rounds settle the offset even when the local time lies on the other side of a change.
  let at = wall - (wallClockAsUtc(wall, timeZone) - wall);
  at = wall - (wallClockAsUtc(at, timeZone) - at);
  return at;
}

/** `[{time}]` in minutes after 00:00 UTC for LOCAL_DEFAULT_TIMES in `timeZone` on the day of `now`. */
export function defaultPostingTimes(timeZone: string, now: number): { time: number }[] {
  const zone = isKnownTimeZone(timeZone) ? timeZone : 'UTC';
  return LOCAL_DEFAULT_TIMES.map((hhmm) => {
    const [h, m] = hhmm.split(':').map(Number) as [number, number];
    const at = instantOfLocalTime(now, h * 60 + m, zone);
    return { time: Math.floor((((at % DAY_MS) + DAY_MS) % DAY_MS) / 60_000) };
  });
}
