import { asc, eq } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client.js';
import { organizations, plans } from '../../db/schema/index.js';

export function createPlansRepository(db: Db) {
  return {
    async findPlan(name: string) {
      const [row] = await db.select().from(plans).where(eq(plans.name, name));
      return row;
    },
    /** Sets a plan's monthly video credits (null = unlimited); undefined when there is no such plan. */
    async setVideoCredits(name: string, credits: number | null, at: Date) {
      const [row] = await db.update(plans).set({ videoCreditsPerMonth: credits, updatedAt: at }).where(eq(plans.name, name)).returning();
      return row;
    },
    async listPlans() {
      return db.select().from(plans).orderBy(asc(plans.name));
    },
    /** pass `q` inside a transaction (on PGlite, a query on `db` there would wait forever) */
    async findPlanOfOrganization(organizationId: string, q: Db | Tx = db) {
      const [row] = await q
        .select({ plan: plans })
        .from(organizations)
        .innerJoin(plans, eq(plans.name, organizations.planName))
        .where(eq(organizations.id, organizationId));
      return row?.plan;
    },
  };
}

export type PlansRepository = ReturnType<typeof createPlansRepository>;
