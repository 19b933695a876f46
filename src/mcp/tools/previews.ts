import type { PreviewsService } from '../../modules/previews/previews.service.js';
import {
  CreatedPreviewLinkSchema,
  CreatePreviewLinkBodySchema,
  ListPreviewLinksQuerySchema,
  PreviewLinkListSchema,
  PreviewLinkParamsSchema,
  RevokedPreviewLinkSchema,
} from '../../modules/previews/previews.schemas.js';
import { defineTool } from '../tool.js';

const ABOUT =
  'A preview link shows one post group, or every post of a date range (optionally of one client group), to a client without an account, at a URL holding a secret token; it expires, may ask for a password and may let the client approve or request changes by name.';
const LINK_ID = 'the preview link id (from list_preview_links or create_preview_link)';

const describe = (l: { id: string; kind: string; group: string | null; from: string | null; to: string | null; title: string; status: string; expiresAt: string }) =>
  `${l.title || (l.kind === 'group' ? `group ${l.group}` : `${l.from} – ${l.to}`)} (id ${l.id}, ${l.status}, expires ${l.expiresAt})`;

/** Preview links: the tools of `modules/previews/previews.routes.ts`, on the same service methods. */
export function previewTools(previews: PreviewsService) {
  return [
    defineTool({
      name: 'create_preview_link',
      title: 'Share posts for review',
      route: 'POST /preview-links',
      description: `Creates a preview link and answers its URL, to send to the client (the URL is shown this once). ${ABOUT} \`allowApproval\` needs a connection that may approve these posts.`,
      input: { body: CreatePreviewLinkBodySchema },
      hints: {
        target: '{"kind": "group", "group": "<group of a post from list_posts>"} or {"kind": "range", "from": ISO date-time, "to": ISO date-time, "customerId"?: a client group id from list_customers}',
        title: 'what the client reads at the top, e.g. "Posts for next week"',
        password: 'optional; tell the client separately',
      },
      output: CreatedPreviewLinkSchema,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
      run: (ctx, { body }) => previews.createLink(ctx.organizationId, body),
      summary: (r) => `Created preview link ${describe(r.link)}: ${r.url}`,
    }),
    defineTool({
      name: 'list_preview_links',
      title: 'List preview links',
      route: 'GET /preview-links',
      description: `The organisation's preview links, newest first, with their status (active, expired, revoked) and when each was last opened; never their tokens. ${ABOUT}`,
      input: { query: ListPreviewLinksQuerySchema },
      hints: { group: 'a post group, to list only the links to it' },
      output: PreviewLinkListSchema,
      annotations: { readOnlyHint: true, idempotentHint: true },
      run: (ctx, { query }) => previews.listLinks(ctx.organizationId, query.group),
      summary: (r) => `${r.links.length} preview link(s)${r.links.length ? `: ${r.links.slice(0, 10).map(describe).join('; ')}` : ''}`,
    }),
    defineTool({
      name: 'revoke_preview_link',
      title: 'Revoke a preview link',
      route: 'DELETE /preview-links/:id',
      description: `Stops a preview link from showing anything (its holder gets "not found"); it stays listed as revoked. ${ABOUT}`,
      input: { params: PreviewLinkParamsSchema },
      rename: { 'params.id': 'linkId' },
      hints: { linkId: LINK_ID },
      output: RevokedPreviewLinkSchema,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
      run: async (ctx, { params }) => {
        await previews.revokeLink(ctx.organizationId, params.id);
        return { id: params.id, revoked: true as const };
      },
      summary: (r) => `Revoked preview link ${r.id}`,
    }),
  ];
}
