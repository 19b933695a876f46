import * as Popover from '@radix-ui/react-popover';
import { useId } from 'react';
import type { Group, Integration, PostState } from '../../api/queries.js';
import { STATE_LABEL } from '../../components/ui.js';
import { platformName } from '../../lib/platforms.js';
import { STATES, type CalendarFilters as Filters } from './calendarModel.js';
import { ChannelAvatar } from './ChannelAvatar.js';
import { StateIcon } from './StateIcon.js';

/**
 * The filters above the calendar: channels (a checklist in a popover), client group, review mode
 * (posts awaiting approval), and the states, whose checkboxes are also the colour legend.
 */
export function CalendarFilters({ filters, onChange, integrations, groups }: { filters: Filters; onChange: (next: Filters) => void; integrations: readonly Integration[]; groups: readonly Group[] }) {
  const groupId = useId();
  const channelsId = useId();
  const statesId = useId();
  // with a client group chosen, only its channels are offered
  const offered = filters.group ? integrations.filter((i) => i.customer?.id === filters.group) : integrations;
  const chosen = filters.channels.filter((c) => offered.some((i) => i.id === c));
  const channelSummary =
    chosen.length === 0 ? 'All channels' : chosen.length === 1 ? (offered.find((i) => i.id === chosen[0])?.name ?? '1 channel') : `${chosen.length} of ${offered.length} channels`;

  function toggleChannel(id: string, on: boolean) {
    // no filter means every channel is ticked: unticking one keeps the others
    const current = chosen.length === 0 ? offered.map((i) => i.id) : chosen;
    const next = on ? [...current, id] : current.filter((c) => c !== id);
    // every channel ticked is the same as no channel filter
    onChange({ ...filters, channels: next.length === offered.length ? [] : next });
  }

  function toggleState(state: PostState, on: boolean) {
    const current = filters.states.length === 0 ? [...STATES] : filters.states;
    const next = on ? [...current, state] : current.filter((s) => s !== state);
    onChange({ ...filters, states: next.length === STATES.length ? [] : STATES.filter((s) => next.includes(s)) });
  }

  return (
    <div className="cal-filters" role="group" aria-label="Filters">
      <div className="cal-filter">
        <span className="cal-filter-label" id={channelsId}>
          Channels
        </span>
        <Popover.Root>
          <Popover.Trigger asChild>
            <button type="button" className="btn btn-secondary cal-channel-trigger" aria-describedby={channelsId} disabled={offered.length === 0}>
              {channelSummary} <span aria-hidden="true">▾</span>
            </button>
          </Popover.Trigger>
          <Popover.Portal>
            <Popover.Content className="cal-popover" align="start" sideOffset={6} aria-label="Channels shown">
              <fieldset className="cal-channel-list">
                <legend className="visually-hidden">Channels shown</legend>
                {offered.map((i) => {
                  const checked = chosen.length === 0 || chosen.includes(i.id);
                  // the last ticked channel stays ticked (none would mean every one)
                  const last = checked && (chosen.length === 1 || offered.length === 1);
                  return (
                    <label key={i.id} className="cal-check">
                      <input type="checkbox" checked={checked} disabled={last} onChange={(e) => toggleChannel(i.id, e.target.checked)} />
                      <ChannelAvatar picture={i.picture} platform={i.identifier} name={i.name} size={20} channelId={i.id} />
                      <span>
                        {i.name}
                        <span className="hint cal-check-sub">
                          {platformName(i.identifier)}
                          {i.profile ? ` · ${i.profile}` : ''}
                          {i.disabled ? ' · disabled' : ''}
                          {i.sandbox ? ' · sandbox' : ''}
                        </span>
                      </span>
                    </label>
                  );
                })}
              </fieldset>
              <div className="cal-popover-actions">
                <button type="button" className="btn btn-ghost" onClick={() => onChange({ ...filters, channels: [] })} disabled={chosen.length === 0}>
                  Show all channels
                </button>
              </div>
            </Popover.Content>
          </Popover.Portal>
        </Popover.Root>
      </div>

      {groups.length > 0 ? (
        <div className="cal-filter">
          <label className="cal-filter-label" htmlFor={groupId}>
            Client group
          </label>
          <select id={groupId} className="cal-select" value={filters.group ?? ''} onChange={(e) => onChange({ ...filters, group: e.target.value || undefined, channels: [] })}>
            <option value="">All groups</option>
            {groups.map((g) => (
              <option key={g.id} value={g.id}>
                {g.name}
              </option>
            ))}
          </select>
        </div>
      ) : null}

      <div className="cal-filter">
        <span className="cal-filter-label" aria-hidden="true">
          Approvals
        </span>
        <label className={`cal-state-chip cal-review-toggle${filters.review ? '' : ' off'}`} title="Only posts waiting for approval or sent back for changes">
          <input type="checkbox" checked={Boolean(filters.review)} onChange={(e) => onChange({ ...filters, review: e.target.checked || undefined })} />
          Review
        </label>
      </div>

      <div className="cal-filter cal-states" role="group" aria-labelledby={statesId}>
        <span className="cal-filter-label" id={statesId}>
          States
        </span>
        <div className="cal-state-list">
          {STATES.map((s) => {
            const checked = filters.states.length === 0 || filters.states.includes(s);
            const last = checked && filters.states.length === 1;
            return (
              <label key={s} className={`cal-state-chip post-${s.toLowerCase()}${checked ? '' : ' off'}${last ? ' last' : ''}`} title={last ? 'At least one state is shown' : undefined}>
                <input type="checkbox" checked={checked} disabled={last} onChange={(e) => toggleState(s, e.target.checked)} />
                <span className="cal-swatch" aria-hidden="true">
                  <StateIcon state={s} />
                </span>
                {STATE_LABEL[s]}
              </label>
            );
          })}
        </div>
      </div>
    </div>
  );
}
