import type { GroupsRepository } from './groups.repository.js';

export function createGroupsService(deps: { groups: GroupsRepository }) {
  return {
    listGroups: (organizationId: string) => deps.groups.listGroups(organizationId),
  };
}

export type GroupsService = ReturnType<typeof createGroupsService>;
