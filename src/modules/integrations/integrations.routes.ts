import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorResponses } from '../../http/error-schema.js';
import type { IntegrationsService } from './integrations.service.js';
import {
  FindSlotSchema,
  IntegrationParamsSchema,
  IntegrationSchema,
  IntegrationsListSchema,
  IntegrationSettingsSchema,
  IsConnectedSchema,
  ListIntegrationsQuerySchema,
  SaveIntegrationSettingsBodySchema,
  UpdateIntegrationBodySchema,
} from './integrations.schemas.js';

export function integrationsRoutes(service: IntegrationsService): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/integrations',
      {
        schema: {
          tags: ['Integrations'],
          summary: 'List the channels of the organisation',
          description: 'Disabled and refresh-needed channels included. `customer` (alias `group`) filters by client group.',
          querystring: ListIntegrationsQuerySchema,
          response: { 200: IntegrationsListSchema },
        },
      },
      async (req) => service.listIntegrations(req.auth.organizationId, req.query.customer ?? req.query.group),
    );

    app.put(
      '/integrations/:id',
      {
        schema: {
          tags: ['Integrations'],
          summary: 'Rename a channel, enable or disable it, set its client group or posting times',
          params: IntegrationParamsSchema,
          body: UpdateIntegrationBodySchema,
          response: { 200: IntegrationSchema },
        },
      },
      async (req) => service.updateIntegration(req.auth.organizationId, req.params.id, req.body),
    );

    app.delete(
      '/integrations/:id',
      {
        schema: {
          tags: ['Integrations'],
          summary: 'Disconnect a channel',
          description: 'Stored credentials are deleted; queued posts of the channel end ERROR "channel disconnected".',
          params: IntegrationParamsSchema,
          response: { 200: IntegrationSchema },
        },
      },
      async (req) => service.disconnectIntegration(req.auth.organizationId, req.params.id),
    );

    app.get(
      '/integration-settings/:id',
      {
        schema: {
          tags: ['Integrations'],
          summary: "The channel's rules, text limit, settings JSON Schema, tools and saved defaults",
          params: IntegrationParamsSchema,
          response: { 200: IntegrationSettingsSchema },
        },
      },
      async (req) => service.getSettings(req.auth.organizationId, req.params.id),
    );

    app.put(
      '/integration-settings/:id',
      {
        schema: {
          tags: ['Integrations'],
          summary: "Save the channel's default post settings (validated against the platform)",
          params: IntegrationParamsSchema,
          body: SaveIntegrationSettingsBodySchema,
          response: { 200: IntegrationSettingsSchema },
        },
      },
      async (req) => service.saveSettings(req.auth.organizationId, req.params.id, req.body.settings),
    );

    app.get(
      '/find-slot/:id',
      {
        schema: {
          tags: ['Integrations'],
          summary: 'The next free posting time of the channel',
          params: IntegrationParamsSchema,
          response: { 200: FindSlotSchema, ...errorResponses('CONFLICT') },
        },
      },
      async (req) => service.findSlot(req.auth.organizationId, req.params.id),
    );

    app.get(
      '/is-connected',
      {
        schema: {
          tags: ['Integrations'],
          summary: 'Whether any channel could publish right now',
          response: { 200: IsConnectedSchema },
        },
      },
      async (req) => service.isConnected(req.auth.organizationId),
    );
  };
}
