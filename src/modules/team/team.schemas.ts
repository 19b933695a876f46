import { z } from 'zod';
import { MEMBER_ROLES } from '../../db/schema/index.js';
import { EmailSchema } from '../accounts/accounts.schemas.js';

const Role = z.enum(MEMBER_ROLES);
const Membership = z.object({ id: z.string(), name: z.string(), role: Role });

export const MeSchema = z.object({
  user: z.object({ id: z.string(), email: z.string(), name: z.string(), timezone: z.string().nullable().describe('IANA time zone for display; null: the browser’s own') }),
  organization: Membership.describe('the organisation the session works in (every call acts for it)'),
  organizations: z.array(Membership),
  csrfToken: z.string().describe('send it as X-CSRF-Token on every state-changing call made with the session cookie'),
});

export const UpdateMeBodySchema = z
  .object({
    name: z.string().trim().max(200).optional(),
    timezone: z.string().max(100).nullable().optional(),
  })
  .strict();

export const SwitchOrganizationBodySchema = z.object({ organizationId: z.string().min(1) });

export const MemberSchema = z.object({ userId: z.string(), email: z.string(), name: z.string(), role: Role, since: z.iso.datetime() });
export const InvitationSchema = z.object({ id: z.string(), email: z.string().nullable(), role: Role, createdAt: z.iso.datetime(), expiresAt: z.iso.datetime() });
export const MembersSchema = z.object({
  me: z.object({ role: Role }),
  members: z.array(MemberSchema),
  invitations: z.array(InvitationSchema).describe('open invitations (owners and admins only; empty for members)'),
});

export const CreateInvitationBodySchema = z.object({
  // (a plain string in the document: a union with the piped EmailSchema lost its email branch there)
  email: z
    .string()
    .trim()
    .toLowerCase()
    .max(254, 'An email address has at most 254 characters')
    .refine((v) => v === '' || EmailSchema.safeParse(v).success, 'Enter an email address such as name@example.com')
    .optional()
    .describe('only this address may accept (empty: anyone with the link); mailed when mail is set up'),
  role: Role.default('member'),
});
export const CreatedInvitationSchema = z.object({
  invitation: InvitationSchema,
  link: z.string().describe('the invitation link, shown once'),
  mailed: z.boolean(),
});

export const UserParamsSchema = z.object({ userId: z.string() });
export const IdParamsSchema = z.object({ id: z.string() });
export const RoleBodySchema = z.object({ role: Role });

export const ApiKeySchema = z.object({
  id: z.string(),
  name: z.string(),
  prefix: z.string(),
  sandbox: z.boolean().describe('a sandbox key (`tdk_test_…`): it sees and touches sandbox channels and their posts only'),
  approvalExempt: z.boolean().describe('the organisation exempted it from approval rules: it queues posts directly (`PUT /api-keys/{id}/approval`)'),
  createdAt: z.iso.datetime(), lastUsedAt: z.iso.datetime().nullable(), revokedAt: z.iso.datetime().nullable() });
export const CreateApiKeyBodySchema = z.object({
  name: z.string().trim().min(1).max(200),
  sandbox: z.boolean().optional().describe('a sandbox key (`tdk_test_…`): it sees and touches sandbox channels and their posts only'),
});
export const CreatedApiKeySchema = z.object({ key: ApiKeySchema, apiKey: z.string().describe('the key, shown once') });

export const ApprovedAppSchema = z.object({
  id: z.string(),
  clientName: z.string(),
  logoUrl: z.string().nullable().describe("the app's https logo, when it gave one"),
  selfRegistered: z.boolean(),
  organizationId: z.string(),
  organizationName: z.string(),
  scope: z.string(),
  scopes: z.array(z.object({ name: z.string(), description: z.string() })).describe('what the approval lets the app do, scope by scope'),
  createdAt: z.iso.datetime(),
  lastUsedAt: z.iso.datetime().nullable(),
});
