import { asc, eq } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { organizations, plans } from '../../db/schema/index.js';

export function createPlansRepository(db: Db) {
  return {
    async findPlan(name: string) {
      const [row] = await db.select().from(plans).where(eq(plans.name, name));
      return row;
    },
    async listPlans() {
      return db.select().from(plans).orderBy(asc(plans.name));
    },
    async findPlanOfOrganization(organizationId: string) {
      const [row] = await db
        .select({ plan: plans })
        .from(organizations)
        .innerJoin(plans, eq(plans.name, organizations.planName))
        .where(eq(organizations.id, organizationId));
      return row?.plan;
    },
  };
}

export type PlansRepository = ReturnType<typeof createPlansRepository>;
