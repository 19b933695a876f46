import { notFound } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import { isUuid } from '../../lib/ids.js';
import type { GroupsRepository } from './groups.repository.js';

/** Client groups ("customers"): bundles of channels per client. */
export function createGroupsService(deps: { groups: GroupsRepository; clock: Clock }) {
  const { groups, clock } = deps;
  return {
    listGroups: (organizationId: string) => groups.listGroups(organizationId),

    createGroup: (organizationId: string, name: string) => groups.insertGroup(organizationId, name),

    async renameGroup(organizationId: string, id: string, name: string) {
      const row = isUuid(id) ? await groups.renameGroup(organizationId, id, name, new Date(clock.now())) : undefined;
      if (!row) throw notFound('Group');
      return row;
    },

    /** Channels of a deleted group stay connected, without a group. */
    async deleteGroup(organizationId: string, id: string) {
      const row = isUuid(id) ? await groups.deleteGroup(organizationId, id, new Date(clock.now())) : undefined;
      if (!row) throw notFound('Group');
      return row;
    },
  };
}

export type GroupsService = ReturnType<typeof createGroupsService>;
