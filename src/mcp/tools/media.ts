import type { MediaService } from '../../modules/media/media.service.js';
import { MediaItemSchema, MediaPageSchema, MediaParamsSchema, MediaUsesSchema, UploadFromUrlBodySchema } from '../../modules/media/media.schemas.js';
import { PageQuerySchema } from '../../lib/pagination.js';
import { defineTool } from '../tool.js';

const MEDIA_ID = 'the media id (from upload_media_from_url or list_media)';

/** Media: the tools of `modules/media/media.routes.ts`. */
export function mediaTools(media: MediaService) {
  return [
    defineTool({
      name: 'upload_media_from_url',
      title: 'Import a picture or video from a URL',
      route: 'POST /upload-from-url',
      description:
        'Downloads a picture or video from a public http(s) URL into the media library and answers its id and path, which create_posts takes in `value[].image` (as the id, or `{ id, path, alt }`). The type is read from the bytes; size limits apply.',
      input: { body: UploadFromUrlBodySchema },
      output: MediaItemSchema,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
      run: (ctx, { body }) => media.uploadFromUrl(ctx.organizationId, body.url, ctx.signal),
      summary: (m) => `Stored media ${m.id} (${m.name}) at ${m.path}`,
    }),
    defineTool({
      name: 'list_media',
      title: 'List the media library',
      route: 'GET /media',
      description: "The organisation's media, newest first, 100 per page (`page` from 0).",
      input: { query: PageQuerySchema },
      output: MediaPageSchema,
      annotations: { readOnlyHint: true, idempotentHint: true },
      run: (ctx, { query }) => media.list(ctx.organizationId, query.page),
      summary: (p) => `${p.media.length} of ${p.total} media item(s) on page ${p.page}${p.hasMore ? '; more on the next page' : ''}`,
    }),
    defineTool({
      name: 'get_media_uses',
      title: 'Which posts use a media item',
      route: 'GET /media/:id/uses',
      description: 'The posts that use a media item, and whether they keep it from being deleted (drafts and queued posts do).',
      input: { params: MediaParamsSchema },
      rename: { 'params.id': 'mediaId' },
      hints: { mediaId: MEDIA_ID },
      output: MediaUsesSchema,
      annotations: { readOnlyHint: true, idempotentHint: true },
      run: (ctx, { params }) => media.uses(ctx.organizationId, params.id),
      summary: (u) => JSON.stringify(u).slice(0, 300),
    }),
    defineTool({
      name: 'delete_media',
      title: 'Delete a media item',
      route: 'DELETE /media/:id',
      description: 'Deletes a media item from the library (refused while a draft or queued post uses it: get_media_uses says which).',
      input: { params: MediaParamsSchema },
      rename: { 'params.id': 'mediaId' },
      hints: { mediaId: MEDIA_ID },
      output: MediaItemSchema,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
      run: (ctx, { params }) => media.remove(ctx.organizationId, params.id),
      summary: (m) => `Deleted media ${m.id} (${m.name})`,
    }),
  ];
}
