import { randomBytes } from 'node:crypto';

/** A Standard Webhooks secret: `whsec_` + base64 of 24 random bytes (192 bits). */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}
