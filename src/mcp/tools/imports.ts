import { z } from 'zod';
import { ExportQuerySchema, ImportJobSchema, ImportParamsSchema } from '../../modules/imports/imports.schemas.js';
import type { ImportsService } from '../../modules/imports/imports.service.js';
import { defineTool } from '../tool.js';

/** Imports and exports: the tools of `modules/imports/imports.routes.ts` (the upload itself is a file: NOT_TOOLS). */
export function importTools(imports: ImportsService) {
  return [
    defineTool({
      name: 'get_import',
      title: 'Get a bulk import',
      route: 'GET /imports/:id',
      description:
        'A bulk import of posts (POST /public/v1/imports, a CSV or JSON file): its status (pending, running, completed, failed), progress (rows done of total), how many post groups and posts it created, or its problems by row (1-based, the CSV header not counted) and column.',
      input: { params: ImportParamsSchema },
      rename: { 'params.id': 'importId' },
      hints: { importId: 'the import id the upload answered' },
      output: ImportJobSchema,
      annotations: { readOnlyHint: true, idempotentHint: true },
      run: (ctx, { params }) => imports.getImport(ctx.organizationId, params.id),
      summary: (r) => `Import ${r.id}: ${r.status}, ${r.progress.done}/${r.progress.total} rows${r.status === 'completed' ? `, ${r.created.posts} post(s) in ${r.created.groups} group(s)` : ''}${r.problems.length ? `, ${r.problems.length} problem(s)` : ''}`,
    }),
    defineTool({
      name: 'export_posts',
      title: 'Export posts as CSV or JSON',
      route: 'GET /exports/posts',
      description:
        'The posts whose publish date is in [startDate, endDate] as a CSV or JSON file in the import format (one row per post item and channel: group, channel, date, type, position, delay, text, media, settings, tags), which POST /public/v1/imports takes back unchanged.',
      input: { query: ExportQuerySchema },
      output: z.string(),
      outputKey: 'file',
      annotations: { readOnlyHint: true, idempotentHint: true },
      run: (ctx, { query }) => imports.exportPosts(ctx.organizationId, query),
      summary: (file) => `${file.length} characters`,
    }),
  ];
}
