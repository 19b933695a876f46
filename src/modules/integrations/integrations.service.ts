import { NO_ACTIVITY, type ActivityRecorder } from '../../core/activity.js';
import { AppError, fieldError, notFound } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import { isUuid } from '../../lib/ids.js';
import { PLATFORM_METADATA } from '../../platforms/metadata.js';
import { isPlatformIdentifier, type PlatformIdentifier } from '../../platforms/platform.js';
import type { GroupsRepository } from '../groups/groups.repository.js';
import { describeSettings } from './integration-settings.js';
import type { Integration, UpdateIntegrationBody } from './integrations.schemas.js';
import type { IntegrationRow, IntegrationsRepository, IntegrationView } from './integrations.repository.js';

/** What a channel of a platform this build does not carry (yet) answers: nothing may be posted. */
const UNKNOWN_PLATFORM_SETTINGS: ReturnType<typeof describeSettings> = {
  rules: '',
  maxLength: 0,
  counting: 'characters',
  editor: 'normal',
  thread: { supported: false },
  media: { minItems: 0, maxItems: 0, mixed: false, onThreadItems: false },
  settings: 'No additional settings required',
  tools: [],
};

export function toIntegration(row: IntegrationView, customer: { id: string; name: string } | null): Integration {
  // Credentials never leave the service: this is the only mapping to the wire.
  return {
    id: row.id,
    name: row.name,
    // (only identifiers of PLATFORM_IDENTIFIERS are ever stored: every connect path checks it)
    identifier: row.identifier as PlatformIdentifier,
    picture: row.picture,
    disabled: row.disabled,
    profile: row.profile,
    ...(customer ? { customer } : {}),
    refreshNeeded: row.refreshNeeded,
    sandbox: row.sandbox,
    postingTimes: row.postingTimes,
    settings: row.defaultSettings ?? {},
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** Slots used when a channel has none (02:00, 06:40, 11:40 UTC, as the reference). */
export const DEFAULT_POSTING_TIMES = [{ time: 120 }, { time: 400 }, { time: 700 }];
const DAY_MS = 86_400_000;
/** find-slot looks this far ahead at most (the reference's search never ends). */
const FIND_SLOT_MAX_DAYS = 3660;

/** A channel's posting times (minutes after midnight UTC), ascending; the defaults when it has none. */
function postingMinutes(postingTimes: { time: number }[]) {
  return (postingTimes.length > 0 ? postingTimes : DEFAULT_POSTING_TIMES).map((t) => t.time).sort((a, b) => a - b);
}

export function createIntegrationsService(deps: {
  integrations: IntegrationsRepository;
  groups: GroupsRepository;
  clock: Clock;
  /** writes an organisation notification */
  notify: (organizationId: string, content: string) => Promise<unknown>;
  /** the activity log (none: nothing recorded) */
  activity?: ActivityRecorder;
}) {
  const { integrations, clock } = deps;
  const activity = deps.activity ?? NO_ACTIVITY;
  const recordChannel = (organizationId: string, row: { id: string; name: string; identifier: string }, action: string, details: Record<string, unknown> = {}) =>
    activity.record({ organizationId, action, targetKind: 'channel', targetId: row.id, targetName: row.name, details: { platform: row.identifier, ...details } });
  const described = new Map<string, ReturnType<typeof describeSettings>>();

  async function getRow(organizationId: string, id: string) {
    const row = isUuid(id) ? await integrations.findIntegration(organizationId, id) : undefined;
    if (!row) throw notFound('Integration');
    return row;
  }

  function metadataOf(identifier: string) {
    return isPlatformIdentifier(identifier) ? PLATFORM_METADATA[identifier] : undefined;
  }

  function describedOf(identifier: string) {
    const m = metadataOf(identifier);
    let output = described.get(identifier);
    if (!output) {
      output = m ? describeSettings(m) : UNKNOWN_PLATFORM_SETTINGS;
      described.set(identifier, output);
    }
    return output;
  }

  function settingsOutput(row: IntegrationRow) {
    return { output: { ...describedOf(row.identifier), defaults: row.defaultSettings ?? {} } };
  }

  return {
    async listIntegrations(organizationId: string, customerId?: string): Promise<Integration[]> {
      if (customerId !== undefined && !isUuid(customerId)) return [];
      const rows = await integrations.listIntegrationViews(organizationId, { customerId });
      return rows.map((r) => toIntegration(r.integration, r.customer));
    },

    async isConnected(organizationId: string) {
      return { connected: await integrations.hasPublishableIntegration(organizationId) };
    },

    /** Rename, enable/disable, move to a client group (`null` = none), set posting times. */
    async updateIntegration(organizationId: string, id: string, body: UpdateIntegrationBody): Promise<Integration> {
      await getRow(organizationId, id);
      if (typeof body.customer === 'string' && !(isUuid(body.customer) && (await deps.groups.groupExists(organizationId, body.customer)))) {
        throw fieldError('customer', 'No such client group');
      }
      const patch = {
        ...(body.name !== undefined ? { name: body.name } : {}),
        ...(body.disabled !== undefined ? { disabled: body.disabled } : {}),
        ...(body.customer !== undefined ? { customerId: body.customer } : {}),
        ...(body.postingTimes !== undefined ? { postingTimes: body.postingTimes } : {}),
        updatedAt: new Date(clock.now()),
      };
      await integrations.updateIntegration(organizationId, id, patch);
      const row = await getRow(organizationId, id);
      const { updatedAt: _at, ...changed } = patch;
      if ('disabled' in changed) await recordChannel(organizationId, row.integration, changed.disabled ? 'channel.disabled' : 'channel.enabled');
      const others = Object.keys(changed).filter((k) => k !== 'disabled');
      if (others.length > 0) await recordChannel(organizationId, row.integration, 'channel.preferences_changed', { changed: others });
      return toIntegration(row.integration, row.customer);
    },

    /**
     * Disconnects a channel: credentials erased, queued posts end ERROR "channel disconnected"
     * (with a notification), and the channel is returned without secrets.
     */
    async disconnectIntegration(organizationId: string, id: string): Promise<Integration> {
      const result = isUuid(id) ? await integrations.disconnectIntegration(organizationId, id, new Date(clock.now()), 'channel disconnected') : undefined;
      if (!result) throw notFound('Integration');
      const { row, failedPostIds } = result;
      await recordChannel(organizationId, row, 'channel.disconnected', { failedPosts: failedPostIds.length });
      const [customer] = row.customerId ? await integrations.findGroupsByIds(organizationId, [row.customerId]) : [];
      await deps.notify(
        organizationId,
        failedPostIds.length > 0
          ? `Channel ${row.name} (${row.identifier}) was disconnected; ${failedPostIds.length} queued post(s) will not be published`
          : `Channel ${row.name} (${row.identifier}) was disconnected`,
      );
      return toIntegration(row, customer ?? null);
    },

    async getSettings(organizationId: string, id: string) {
      return settingsOutput((await getRow(organizationId, id)).integration);
    },

    /** Saves the channel's default post settings, validated against the platform's schema. */
    async saveSettings(organizationId: string, id: string, settings: Record<string, unknown>) {
      const { integration } = await getRow(organizationId, id);
      const schema = metadataOf(integration.identifier)?.settings;
      let value: Record<string, unknown> = {};
      if (schema) {
        const parsed = schema.safeParse(settings);
        if (!parsed.success) {
          const fields = parsed.error.issues.map((i) => ({ path: ['settings', ...i.path.map(String)].join('.'), message: i.message }));
          throw new AppError('VALIDATION_FAILED', fields.map((f) => `${f.path}: ${f.message}`).join('; '), { fields });
        }
        value = parsed.data as Record<string, unknown>;
      }
      const row = await integrations.updateIntegration(organizationId, id, { defaultSettings: value, updatedAt: new Date(clock.now()) });
      if (!row) throw notFound('Integration');
      await recordChannel(organizationId, row, 'channel.settings_changed', { changed: Object.keys(value) });
      return settingsOutput(row);
    },

    /**
     * The earliest future posting slot of the channel at which the organisation has no post yet
     * (reference §5), searching day by day within a bounded horizon.
     */
    async findSlot(organizationId: string, id: string) {
      const { integration } = await getRow(organizationId, id);
      const times = postingMinutes(integration.postingTimes);
      const now = clock.now();
      const today = Math.floor(now / DAY_MS) * DAY_MS;
      const chunkDays = 31;
      for (let start = 0; start < FIND_SLOT_MAX_DAYS; start += chunkDays) {
        const from = today + start * DAY_MS + Math.min(0, times[0]!) * 60_000;
        const to = today + (start + chunkDays) * DAY_MS + Math.max(DAY_MS, times.at(-1)! * 60_000);
        const taken = await integrations.findTakenInstants(organizationId, new Date(from), new Date(to));
        for (let d = start; d < start + chunkDays; d++) {
          for (const minutes of times) {
            const at = today + d * DAY_MS + minutes * 60_000;
            if (at > now && !taken.has(at)) return { date: new Date(at).toISOString() };
          }
        }
      }
      throw new AppError('CONFLICT', `No free posting slot in the next ${FIND_SLOT_MAX_DAYS} days`);
    },

    /**
     * The channel's posting-time instants (ms) in (from, to], ascending, each with whether the
     * channel itself already has a live post at that instant (evergreen queues fill the free ones).
     */
    async channelSlots(organizationId: string, id: string, from: number, to: number) {
      const { integration } = await getRow(organizationId, id);
      const times = postingMinutes(integration.postingTimes);
      const taken = await integrations.findTakenInstants(organizationId, new Date(from), new Date(to + 1), id);
      const out: { at: number; taken: boolean }[] = [];
      for (let day = Math.floor(from / DAY_MS) * DAY_MS - DAY_MS; day <= to; day += DAY_MS) {
        for (const minutes of times) {
          const at = day + minutes * 60_000;
          if (at > from && at <= to) out.push({ at, taken: taken.has(at) });
        }
      }
      return out.sort((a, b) => a.at - b.at);
    },
  };
}

export type IntegrationsService = ReturnType<typeof createIntegrationsService>;
