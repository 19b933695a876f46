import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requireSession } from '../../http/auth.js';
import { errorResponses } from '../../http/error-schema.js';
import { OnboardingSchema } from './onboarding.schemas.js';
import type { OnboardingService } from './onboarding.service.js';

/** The calendar app's getting-started checklist (issue 28): a session-only read, like the other "Web app" routes. */
export function onboardingRoutes(onboarding: OnboardingService): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/onboarding',
      {
        schema: {
          tags: ['Web app'],
          summary: 'What the organisation has done of its first steps (channel, post, teammate, API key)',
          description: 'Only for the signed-in web app (session cookie): API keys and OAuth tokens get 403.',
          response: { 200: OnboardingSchema, ...errorResponses('FORBIDDEN') },
        },
      },
      async (req) => onboarding.getSteps(requireSession(req)),
    );
  };
}
