import type { components, paths } from '../../api/schema.js';

/** The shapes of the settings routes, from the generated API types. */
type Json<T> = T extends { content: { 'application/json': infer B } } ? B : never;

export type Members = Json<paths['/members']['get']['responses'][200]>;
export type Member = Members['members'][number];
export type Invitation = Members['invitations'][number];
export type Role = Member['role'];
export type CreatedInvitation = Json<paths['/invitations']['post']['responses'][201]>;

export type ApiKey = Json<paths['/api-keys']['get']['responses'][200]>[number];
export type CreatedApiKey = Json<paths['/api-keys']['post']['responses'][201]>;

export type ApprovedApp = Json<paths['/approved-apps']['get']['responses'][200]>[number];

export type Webhook = components['schemas']['Webhook'];
export type CreatedWebhook = components['schemas']['CreatedWebhook'];
export type WebhookBody = paths['/webhooks']['post']['requestBody']['content']['application/json'];
export type WebhookPatch = paths['/webhooks/{id}']['put']['requestBody']['content']['application/json'];
export type RotatedSecret = Json<paths['/webhooks/{id}/rotate-secret']['post']['responses'][200]>;
export type DeliveryEntry = components['schemas']['WebhookDeliveryLogEntry'];
export type DeliveryPage = Json<paths['/webhooks/{id}/deliveries']['get']['responses'][200]>;
/** The event types a webhook may subscribe to (the API's enum: every type but `webhook.test`). */
export type SubscribableEventType = NonNullable<WebhookBody['events']>[number];

export const ROLES: readonly Role[] = ['owner', 'admin', 'member', 'contributor'];
export const ROLE_LABEL: Record<Role, string> = { owner: 'Owner', admin: 'Admin', member: 'Member', contributor: 'Contributor' };

/** Query keys of the settings pages (invalidated after their own changes). */
export const settingsKeys = {
  members: ['members'] as const,
  apiKeys: ['api-keys'] as const,
  approvedApps: ['approved-apps'] as const,
  webhooks: ['webhooks'] as const,
  deliveries: (webhookId: string, page?: number) => (page === undefined ? (['webhook-deliveries', webhookId] as const) : (['webhook-deliveries', webhookId, page] as const)),
};
