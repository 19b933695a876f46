import { z } from 'zod';
import { PlatformIdentifierSchema } from './integrations.schemas.js';

export const PlatformSetupSchema = z
  .object({
    app: z.string().describe('what to register at the platform, in words'),
    variables: z
      .array(z.object({ name: z.string(), set: z.boolean() }))
      .describe('the environment variables the app needs, and whether each is set on this deployment (never their values)'),
    missing: z.array(z.string()).describe('names of the variables still to set; empty when the platform is ready'),
    callbackUrl: z.string().describe("the redirect (callback) URL to register in the platform's developer console, built from PUBLIC_URL"),
    consoleUrl: z.string().nullable().describe("the platform's developer console; null when it has no public one"),
    docsPath: z.string().describe("the setup steps in Tidings' documentation (file and anchor)"),
    docsUrl: z.string().nullable().describe('the same steps as a link, when DOCS_URL is set'),
  })
  .meta({ id: 'PlatformSetup' });

export const PlatformReadinessSchema = z
  .object({
    identifier: PlatformIdentifierSchema,
    name: z.string(),
    authKind: z.enum(['oauth2', 'instance-oauth2', 'credentials']),
    instanceBased: z.boolean(),
    ready: z.boolean().describe('a channel can be connected on this deployment now'),
    available: z.boolean().describe('this version can connect the platform at all'),
    sandbox: z.boolean().describe('a sandbox channel of the platform can be connected (`POST /sandbox/channels`): its simulator inside Tidings, no app needed'),
    setup: PlatformSetupSchema.nullable().describe("the deployment's app at the platform; null when nothing must be registered (credential forms, per-instance apps)"),
  })
  .meta({ id: 'PlatformReadiness' });
export type PlatformReadiness = z.infer<typeof PlatformReadinessSchema>;
