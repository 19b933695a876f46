import type { Clock } from '../../lib/clock.js';
import { AppError } from '../../errors.js';
import type { AccountsRepository } from '../accounts/accounts.repository.js';
import type { IntegrationsRepository } from '../integrations/integrations.repository.js';
import type { OrganizationsRepository } from '../organizations/organizations.repository.js';
import type { PostsRepository } from '../posts/posts.repository.js';
import type { SessionContext } from '../sessions/sessions.service.js';

/** The getting-started steps of the calendar app, in the order the checklist shows them. */
export const ONBOARDING_STEPS = ['connect-channel', 'first-post', 'invite-teammate', 'api-key'] as const;
export type OnboardingStepId = (typeof ONBOARDING_STEPS)[number];

export interface OnboardingDeps {
  accounts: Pick<AccountsRepository, 'findMembership' | 'listMembers' | 'listOpenInvitations'>;
  organizations: Pick<OrganizationsRepository, 'listApiKeys'>;
  integrations: Pick<IntegrationsRepository, 'listIntegrations'>;
  posts: Pick<PostsRepository, 'hasAnyPost'>;
  clock: Clock;
}

/**
 * What a new organisation has done of its first hour (issue 28). Read-only, and for every member:
 * a plain member cannot list API keys or invitations, yet their checklist still has to know
 * whether a key or an invitation exists (only yes/no is answered, never the rows).
 */
export function createOnboardingService(deps: OnboardingDeps) {
  return {
    async getSteps(session: SessionContext): Promise<{ steps: { id: OnboardingStepId; done: boolean }[] }> {
      const membership = session.organizationId ? await deps.accounts.findMembership(session.organizationId, session.userId) : undefined;
      if (!membership) throw new AppError('FORBIDDEN', 'You are not a member of an organisation yet: accept an invitation or create one');
      const org = membership.organizationId;
      const [channels, anyPost, members, invitations, keys] = await Promise.all([
        deps.integrations.listIntegrations(org),
        deps.posts.hasAnyPost(org),
        deps.accounts.listMembers(org),
        deps.accounts.listOpenInvitations(org, new Date(deps.clock.now())),
        deps.organizations.listApiKeys(org),
      ]);
      const done: Record<OnboardingStepId, boolean> = {
        'connect-channel': channels.length > 0,
        'first-post': anyPost,
        'invite-teammate': members.length > 1 || invitations.length > 0,
        'api-key': keys.some((k) => !k.revokedAt),
      };
      return { steps: ONBOARDING_STEPS.map((id) => ({ id, done: done[id] })) };
    },
  };
}

export type OnboardingService = ReturnType<typeof createOnboardingService>;
