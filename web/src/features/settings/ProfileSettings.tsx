import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { api, unwrap } from '../../api/client.js';
import { useMe, type Me } from '../../api/session.js';
import { Button, ErrorNotice, Field, Notice, TextInput } from '../../components/ui.js';
import { utcTitle } from '../../lib/time.js';
import { Section } from './common.js';
import { fieldError, onlyFieldErrors } from './errors.js';
import { TimeZonePicker, zoneOffset } from './TimeZonePicker.js';
import { ROLE_LABEL } from './types.js';

const browserZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone;

/** The current time in a zone, ticking (so the choice can be checked against a wall clock). */
function NowIn({ zone }: { zone: string }) {
  const [now, setNow] = useState(() => new Date());
  useEffect(() => {
    const t = setInterval(() => setNow(new Date()), 15_000);
    return () => clearInterval(t);
  }, []);
  const text = new Intl.DateTimeFormat(undefined, { timeZone: zone, weekday: 'long', day: 'numeric', month: 'long', year: 'numeric', hour: '2-digit', minute: '2-digit' }).format(now);
  return (
    <p className="tz-now" data-testid="tz-now">
      Now in <strong>{zone.replace(/_/g, ' ')}</strong>: <time dateTime={now.toISOString()} title={utcTitle(now.toISOString())}>{text}</time> <span className="muted">({zoneOffset(zone, now)})</span>
    </p>
  );
}

/** Name and display time zone (PUT /me); password and sessions stay on the server's account pages. */
export function ProfileSettings() {
  const me = useMe();
  const queryClient = useQueryClient();
  const [name, setName] = useState(me.user.name);
  const [timezone, setTimezone] = useState<string | null>(me.user.timezone);
  const save = useMutation({
    mutationFn: (body: { name: string; timezone: string | null }) => unwrap(api.PUT('/me', { body })),
    onSuccess: async (next: Me) => {
      // the whole app reads the zone from ['me']: every time shown follows the new choice
      queryClient.setQueryData(['me'], next);
      await queryClient.invalidateQueries({ queryKey: ['me'] });
    },
  });
  const changed = name.trim() !== me.user.name || timezone !== me.user.timezone;
  const shownZone = timezone ?? browserZone();

  function submit(e: FormEvent) {
    e.preventDefault();
    save.mutate({ name: name.trim(), timezone });
  }

  return (
    <>
      <Section title="Profile" description={`Signed in as ${me.user.email}. You work in ${me.organization.name} as ${ROLE_LABEL[me.organization.role].toLowerCase()}.`}>
        <form className="card settings-form" onSubmit={submit} noValidate>
          <Field label="Name" hint="Shown to the other members of your organisations." error={fieldError(save.error, 'name')}>
            {(p) => <TextInput {...p} value={name} maxLength={200} autoComplete="name" onChange={(e) => setName(e.target.value)} />}
          </Field>
          <Field label="Display time zone" hint="Every date and time in the app is shown in this zone. Posts are stored in UTC, so changing it moves nothing." error={fieldError(save.error, 'timezone')}>
            {(p) => <TimeZonePicker value={timezone} onChange={setTimezone} browserZone={browserZone()} selectProps={p} />}
          </Field>
          <NowIn zone={shownZone} />
          {save.error && !onlyFieldErrors(save.error, ['name', 'timezone']) ? <ErrorNotice error={save.error} /> : null}
          {save.isSuccess && !changed ? <Notice kind="ok">Saved. Times are now shown in {(me.user.timezone ?? browserZone()).replace(/_/g, ' ')}.</Notice> : null}
          <div className="form-actions">
            <Button type="submit" disabled={save.isPending || !changed}>
              {save.isPending ? 'Saving…' : 'Save profile'}
            </Button>
            {changed ? (
              <Button
                variant="ghost"
                onClick={() => {
                  setName(me.user.name);
                  setTimezone(me.user.timezone);
                  save.reset();
                }}
              >
                Undo changes
              </Button>
            ) : null}
          </div>
        </form>
      </Section>
      <Section title="Password, sessions and organisations">
        <div className="card">
          <p>
            Changing your password, signing out of every device and creating another organisation are on your <a href="/account">account page</a>.
          </p>
        </div>
      </Section>
    </>
  );
}
