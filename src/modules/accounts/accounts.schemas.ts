import { z } from 'zod';
import { MEMBER_ROLES } from '../../db/schema/index.js';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../../lib/passwords.js';

/** Emails are kept trimmed and lower-cased: one account per address, however it is typed. */
export const EmailSchema = z
  .string()
  .trim()
  .toLowerCase()
  .max(254, 'An email address has at most 254 characters')
  .pipe(z.email('Enter an email address such as name@example.com'));

export const NewPasswordSchema = z
  .string()
  .min(PASSWORD_MIN_LENGTH, `Use at least ${PASSWORD_MIN_LENGTH} characters`)
  .max(PASSWORD_MAX_LENGTH, `Use at most ${PASSWORD_MAX_LENGTH} characters`);

const NameSchema = z.string().trim().max(200, 'At most 200 characters');
export const OrganizationNameSchema = z.string().trim().min(1, 'Give the organisation a name').max(200, 'At most 200 characters');
export const RoleSchema = z.enum(MEMBER_ROLES, 'Choose owner, admin or member');

export const SignUpSchema = z.object({
  email: EmailSchema,
  password: NewPasswordSchema,
  name: NameSchema.default(''),
  organization: z.string().trim().max(200, 'At most 200 characters').default(''),
  invite: z.string().max(200).optional(),
});
export type SignUpInput = z.infer<typeof SignUpSchema>;

export const LogInSchema = z.object({
  email: z.string().trim().toLowerCase().min(1, 'Enter your email address').max(254),
  password: z.string().min(1, 'Enter your password').max(PASSWORD_MAX_LENGTH),
});

export const ChangePasswordSchema = z.object({
  current: z.string().min(1, 'Enter your current password').max(PASSWORD_MAX_LENGTH),
  password: NewPasswordSchema,
});

export const ForgotPasswordSchema = z.object({ email: EmailSchema });
export const ResetPasswordSchema = z.object({ token: z.string().min(1).max(200), password: NewPasswordSchema });

export const InviteSchema = z.object({
  email: z.union([z.literal(''), EmailSchema]).default(''),
  role: RoleSchema.default('member'),
});

export const ApiKeyNameSchema = z.object({ name: z.string().trim().min(1, 'Give the key a name').max(200, 'At most 200 characters') });
