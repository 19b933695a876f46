import { z } from 'zod';

export const GroupSchema = z.object({ id: z.string(), name: z.string() }).meta({ id: 'Group' });

/** `GET /groups`. */
export const GroupListSchema = z.array(GroupSchema);

export const GroupBodySchema = z.object({
  name: z.string().trim().min(1, 'Required').max(200),
});

export const GroupParamsSchema = z.object({ id: z.string() });
