import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';

const API = '/public/v1';

/**
 * What a contributor (issue 31) may change: posts (as drafts — queueing is refused by the approval
 * gate), their submission, comments, media, preview links to show a client, notifications and their
 * own session. Everything else that changes something (channels, webhooks, rules, keys, templates,
 * autopilot, imports) needs a member or above: 403 naming the role.
 */
const ALLOWED = new Set([
  'POST /posts',
  'DELETE /posts/:id',
  'DELETE /posts/group/:group',
  'PUT /posts/:id/date',
  'PUT /posts/group/:group/date',
  'PUT /posts/:id/settings',
  'PUT /posts/:id/status',
  'POST /posts/group/:group/submit',
  'POST /posts/group/:group/comments',
  'PATCH /comments/:id',
  'DELETE /comments/:id',
  'POST /upload',
  'POST /upload-from-url',
  'POST /preview-links',
  'DELETE /preview-links/:id',
  'POST /templates/:id/render',
  'POST /signatures/:id/apply',
  'DELETE /members/:userId',
  // writing help (issue 32): suggestions only, nothing saved (the model's settings are not theirs)
  'POST /ai/draft',
  'POST /ai/rewrite',
  'POST /ai/thread',
  'POST /ai/hashtags',
  'POST /ai/alt-text',
  'POST /ai/translate',
]);
const READ = new Set(['GET', 'HEAD', 'OPTIONS']);

export function installContributorScope(app: FastifyInstance) {
  app.addHook('preValidation', async (req: FastifyRequest) => {
    if (req.auth?.session?.role !== 'contributor' || READ.has(req.method)) return;
    const url = req.routeOptions.url?.startsWith(API) ? req.routeOptions.url.slice(API.length) : undefined;
    if (url === undefined || ALLOWED.has(`${req.method} ${url}`)) return;
    // the notifications and the person's own session and organisation choice
    if (url.startsWith('/notifications') || url.startsWith('/me')) return;
    throw new AppError('FORBIDDEN', 'Contributors write posts and submit them for approval; this needs the member role or above (ask an owner or admin)');
  });
}
