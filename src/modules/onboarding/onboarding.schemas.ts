import { z } from 'zod';
import { ONBOARDING_STEPS } from './onboarding.service.js';

export const OnboardingSchema = z
  .object({
    steps: z
      .array(
        z.object({
          id: z.enum(ONBOARDING_STEPS).describe('connect-channel: a channel is connected · first-post: a post exists · invite-teammate: another member or an open invitation · api-key: a live API key'),
          done: z.boolean(),
        }),
      )
      .describe('Every step, always in this order'),
  });
export type Onboarding = z.infer<typeof OnboardingSchema>;
