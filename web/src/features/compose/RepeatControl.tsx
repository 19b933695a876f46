import { Field } from '../../components/ui.js';
import { buildRule, describeRule, WEEKDAYS, weekdayOf, type RepeatChoice, type Weekday } from './repeat.js';

/**
 * "Repeat" beside the composer's date and time (issue 30): does not repeat, or daily / weekly on
 * chosen weekdays / monthly, every N, ending never, on a date or after N posts. The rule starts at
 * the composer's date and time in the person's zone; a short summary says what it means.
 * `errors` are keyed by the API's field paths (`rule`, `rule.count`, …).
 */
export function RepeatControl({
  value,
  onChange,
  start,
  timeZone,
  errors,
}: {
  value: RepeatChoice;
  onChange: (next: RepeatChoice) => void;
  start: { date: string; time: string } | undefined;
  timeZone: string;
  errors: Record<string, string>;
}) {
  const set = (patch: Partial<RepeatChoice>) => onChange({ ...value, ...patch });
  const unit = value.frequency === 'daily' ? 'days' : value.frequency === 'weekly' ? 'weeks' : 'months';
  const repeating = value.frequency !== 'none';
  const startDay = start ? weekdayOf(start.date) : undefined;
  const days: Weekday[] = value.weekdays.length > 0 ? value.weekdays : startDay ? [startDay] : [];
  const ruleError = errors['rule'] ?? errors['rule.startDate'] ?? errors['rule.time'] ?? errors['rule.timeZone'] ?? errors['rule.frequency'] ?? errors['rule.monthDays'];

  return (
    <div className="compose-repeat">
      <Field label="Repeat">
        {(p) => (
          <select
            {...p}
            className="input"
            value={value.frequency}
            onChange={(e) => {
              const frequency = e.target.value as RepeatChoice['frequency'];
              // weekly starts on the chosen date's weekday
              set({ frequency, ...(frequency === 'weekly' && value.weekdays.length === 0 && startDay ? { weekdays: [startDay] } : {}) });
            }}
          >
            <option value="none">Does not repeat</option>
            <option value="daily">Daily</option>
            <option value="weekly">Weekly</option>
            <option value="monthly">Monthly</option>
          </select>
        )}
      </Field>
      {repeating ? (
        <div className="compose-repeat-rule">
          <div className="compose-repeat-row">
            <Field label={`Every how many ${unit}`} error={errors['rule.interval']}>
              {(p) => <input {...p} type="number" min={1} max={365} className="input compose-repeat-num" value={Number.isNaN(value.interval) ? '' : value.interval} onChange={(e) => set({ interval: e.target.valueAsNumber })} />}
            </Field>
            <Field label="Ends">
              {(p) => (
                <select {...p} className="input" value={value.ends} onChange={(e) => set({ ends: e.target.value as RepeatChoice['ends'] })}>
                  <option value="never">Never</option>
                  <option value="on">On a date</option>
                  <option value="after">After a number of posts</option>
                </select>
              )}
            </Field>
            {value.ends === 'on' ? (
              <Field label="Last date" error={errors['rule.until']}>
                {(p) => <input {...p} type="date" className="input" value={value.until} min={start?.date} onChange={(e) => set({ until: e.target.value })} />}
              </Field>
            ) : null}
            {value.ends === 'after' ? (
              <Field label="Number of posts" error={errors['rule.count']}>
                {(p) => <input {...p} type="number" min={1} max={1000} className="input compose-repeat-num" value={Number.isNaN(value.count) ? '' : value.count} onChange={(e) => set({ count: e.target.valueAsNumber })} />}
              </Field>
            ) : null}
          </div>
          {value.frequency === 'weekly' ? (
            <fieldset className="compose-repeat-days" aria-invalid={errors['rule.weekdays'] ? true : undefined}>
              <legend>On</legend>
              {WEEKDAYS.map((w) => {
                const on = days.includes(w.code);
                return (
                  <label key={w.code} className={`compose-repeat-day${on ? ' on' : ''}`} title={w.long}>
                    <input
                      type="checkbox"
                      checked={on}
                      aria-label={w.long}
                      // the last day cannot be unticked: a weekly rule needs one
                      disabled={on && days.length === 1}
                      onChange={() => set({ weekdays: on ? days.filter((d) => d !== w.code) : [...days, w.code] })}
                    />
                    <span aria-hidden="true">{w.short}</span>
                  </label>
                );
              })}
              {errors['rule.weekdays'] ? (
                <p className="error" role="alert">
                  {errors['rule.weekdays']}
                </p>
              ) : null}
            </fieldset>
          ) : null}
          <p className="hint compose-repeat-summary" aria-live="polite">
            {start ? describeRule(buildRule({ ...value, interval: value.interval || 1, count: value.count || 1 }, start, timeZone)) : 'Choose the date and time of the first post.'}
            {value.frequency === 'monthly' && start && Number(start.date.slice(8, 10)) > 28 ? ' (months without that day are skipped)' : ''}
          </p>
          {ruleError ? (
            <p className="error" role="alert">
              {ruleError}
            </p>
          ) : null}
        </div>
      ) : null}
    </div>
  );
}
