import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorResponses } from '../../http/error-schema.js';
import type { PreviewsService } from './previews.service.js';
import {
  PreviewApproveBodySchema,
  PreviewDecisionSchema,
  PreviewGroupParamsSchema,
  PreviewRequestChangesBodySchema,
  PreviewTokenParamsSchema,
  PreviewViewSchema,
} from './previews.schemas.js';

/** Where the holder's side lives: outside /public/v1 and its authentication (the token is the credential). */
export const PREVIEW_API_PREFIX = '/preview-api';

const password = (req: FastifyRequest) => {
  const value = req.headers['x-preview-password'];
  return typeof value === 'string' ? value : undefined;
};

const OPEN_ERRORS = errorResponses('VALIDATION_FAILED', 'NOT_FOUND', 'PREVIEW_PASSWORD_REQUIRED', 'LOGIN_THROTTLED', 'INTERNAL', 'SERVICE_UNAVAILABLE');
const DECIDE_ERRORS = errorResponses('VALIDATION_FAILED', 'NOT_FOUND', 'PREVIEW_PASSWORD_REQUIRED', 'LOGIN_THROTTLED', 'FORBIDDEN', 'CONFLICT', 'INTERNAL', 'SERVICE_UNAVAILABLE');

/**
 * A preview link's holder (issue 31): no account, no cookie, the token in the path and the
 * password (when the link has one) in `X-Preview-Password` — UTF-8, percent-encoded when it has
 * characters outside ASCII. Anything wrong with the token is a 404. Register with
 * `{ prefix: PREVIEW_API_PREFIX }`, outside the authenticated scope.
 */
export function previewPublicRoutes(service: PreviewsService): FastifyPluginAsyncZod {
  return async (app) => {
    // The answers hold a client's unpublished posts: never cached, indexed or sent on as a referrer.
    app.addHook('onSend', async (_req, reply, payload) => {
      void reply.headers({ 'cache-control': 'no-store', 'x-robots-tag': 'noindex, nofollow', 'referrer-policy': 'no-referrer' });
      return payload;
    });

    app.get('/:token', { schema: { params: PreviewTokenParamsSchema, response: { 200: PreviewViewSchema, ...OPEN_ERRORS } } }, async (req) => service.view(req.params.token, password(req)));

    app.post(
      '/:token/groups/:group/approve',
      { schema: { params: PreviewGroupParamsSchema, body: PreviewApproveBodySchema, response: { 200: PreviewDecisionSchema, ...DECIDE_ERRORS } } },
      async (req) => service.approve(req.params.token, password(req), req.params.group, req.body),
    );

    app.post(
      '/:token/groups/:group/request-changes',
      { schema: { params: PreviewGroupParamsSchema, body: PreviewRequestChangesBodySchema, response: { 200: PreviewDecisionSchema, ...DECIDE_ERRORS } } },
      async (req) => service.requestChanges(req.params.token, password(req), req.params.group, req.body),
    );
  };
}
