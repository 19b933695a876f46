import { z } from 'zod';

export const GroupSchema = z.object({ id: z.string(), name: z.string() }).meta({ id: 'Group' });
