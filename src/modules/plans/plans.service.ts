import { AppError } from '../../errors.js';
import type { Tx } from '../../db/client.js';
import type { PlansRepository } from './plans.repository.js';

/** The limits a plan can set; `null` = unlimited. */
export const PLAN_LIMITS = {
  channels: { column: 'maxChannels', label: 'channels' },
  scheduledPostsPerMonth: { column: 'maxScheduledPostsPerMonth', label: 'scheduled posts per month' },
  webhooks: { column: 'maxWebhooks', label: 'webhooks' },
  videoCredits: { column: 'videoCreditsPerMonth', label: 'video credits per month' },
} as const;

export type PlanLimit = keyof typeof PLAN_LIMITS;

export function createPlansService(deps: { plans: PlansRepository }) {
  return {
    listPlans: () => deps.plans.listPlans(),

    /** The admin CLI: a plan's monthly video credits (`null` = unlimited). */
    async setVideoCredits(name: string, credits: number | null) {
      const plan = await deps.plans.setVideoCredits(name, credits, new Date());
      if (!plan) throw new AppError('NOT_FOUND', `Plan "${name}" not found (see \`tidings plan list\`)`);
      return { plan };
    },

    /**
     * Throws PLAN_LIMIT_REACHED (403) when adding `adding` more to the current usage would pass the
     * organisation's plan limit. The message names the limit, the plan and the figures. `usage` is
     * a number, or a function counting it, called only when the plan sets this limit (an unlimited
     * plan costs no count).
     */
    /** `tx`: read in the caller's transaction (on embedded PGlite a read beside it would wait for it) */
    async assertWithinLimit(organizationId: string, limit: PlanLimit, usage: number | (() => Promise<number>), adding = 1, tx?: Tx) {
      const plan = await deps.plans.findPlanOfOrganization(organizationId, tx);
      if (!plan) return;
      const { column, label } = PLAN_LIMITS[limit];
      const max = plan[column];
      if (max === null) return;
      const currentUsage = typeof usage === 'number' ? usage : await usage();
      if (currentUsage + adding > max) {
        throw new AppError(
          'PLAN_LIMIT_REACHED',
          `Plan limit reached: ${limit} — the "${plan.name}" plan allows ${max} ${label} and ${currentUsage} are in use`,
        );
      }
    },
  };
}

export type PlansService = ReturnType<typeof createPlansService>;
