import multipart from '@fastify/multipart';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AppError, fieldError } from '../../errors.js';
import { errorResponses } from '../../http/error-schema.js';
import type { ImportFormat } from './import-format.js';
import { DryRunResponseSchema, ExportQuerySchema, ImportDoneSchema, ImportJobSchema, ImportParamsSchema, ImportQuerySchema } from './imports.schemas.js';
import type { ImportInput, ImportsService } from './imports.service.js';

const FILE_TYPES = ['text/csv', 'application/x-ndjson', 'application/ndjson'];

function formatOf(contentType: string | undefined, filename?: string): ImportFormat {
  const t = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (t.includes('json') || /\.(json|ndjson|jsonl)$/i.test(filename ?? '')) return 'json';
  return 'csv';
}

/** A sandbox key sees sandbox channels only; an import could name any channel, so it takes a live key. */
function refuseSandbox(req: { auth: { sandbox?: unknown } }) {
  if (req.auth.sandbox) throw new AppError('FORBIDDEN', 'Imports and exports use a live API key (a sandbox key sees sandbox channels only)');
}

/** Bulk import and export of posts under /public/v1 (issue 30 part 4). */
export function importsRoutes(service: ImportsService, bodyLimit: number): FastifyPluginAsyncZod {
  return async (app) => {
    await app.register(multipart, { limits: { fileSize: bodyLimit, files: 1, fields: 5 } });
    app.addContentTypeParser(FILE_TYPES, { parseAs: 'string', bodyLimit }, (_req, body, done) => done(null, body));

    app.post(
      '/imports',
      {
        bodyLimit,
        config: {
          documentedBody: {
            contentType: 'text/csv',
            schema: {
              type: 'string',
              description:
                'The file: CSV with a header line (text/csv), a JSON array of row objects (application/json), NDJSON (application/x-ndjson), or multipart/form-data with the file in the field `file`. Columns: channel (channel id, its account id or its name), date (ISO 8601 with an offset, or a local date-time with `timezone`), timezone (IANA), text, media (URLs separated by spaces or |), settings (JSON object), type (schedule|draft), group (rows with the same group are one post group over several channels), position and delay (thread items: 0 is the post, 1… its replies; delay in minutes), tags (separated by |).',
            },
          },
        },
        schema: {
          tags: ['Imports'],
          summary: 'Import posts from a CSV or JSON file (dryRun=true: check row by row, create nothing)',
          description:
            'Without dryRun every row is created in one transaction or none: a file with any problem answers 400 with `fields` named `rows.<row>.<column>` (rows 1-based, the CSV header not counted). Files with more than 2,000 rows answer 202 with an import to poll (`GET /imports/{id}`).',
          querystring: ImportQuerySchema,
          response: { 200: DryRunResponseSchema, 201: ImportDoneSchema, 202: ImportJobSchema, ...errorResponses('PLAN_LIMIT_REACHED', 'FORBIDDEN', 'PAYLOAD_TOO_LARGE') },
        },
      },
      async (req, reply) => {
        refuseSandbox(req);
        let input: ImportInput;
        if (req.isMultipart()) {
          let part;
          try {
            part = await req.file();
          } catch (e) {
            const status = (e as { statusCode?: number }).statusCode;
            if (status !== undefined && status !== 400) throw e;
            throw fieldError('file', `the multipart body could not be read (${(e as Error).message})`);
          }
          if (!part) throw fieldError('file', 'Required');
          if (part.fieldname !== 'file') {
            part.file.resume();
            throw fieldError('file', `Required (the file came in the field \`${part.fieldname}\`)`);
          }
          const buf = await part.toBuffer().catch((e: unknown) => {
            throw new AppError('PAYLOAD_TOO_LARGE', `file: at most ${bodyLimit} bytes (${(e as Error).message})`);
          });
          input = { format: req.query.format ?? formatOf(part.mimetype, part.filename), text: buf.toString('utf8') };
        } else if (typeof req.body === 'string') {
          input = { format: req.query.format ?? formatOf(req.headers['content-type']), text: req.body };
        } else if (req.body === undefined || req.body === null) {
          throw fieldError('file', 'Required: send the file as the body (text/csv, application/json, application/x-ndjson) or multipart');
        } else {
          input = { format: 'json', value: req.body };
        }
        const r = await service.importFile(req.auth.organizationId, input, { dryRun: req.query.dryRun });
        if (r.kind === 'dryRun') return reply.status(200).send(r.body);
        if (r.kind === 'job') return reply.status(202).send(r.body);
        return reply.status(201).send(r.body);
      },
    );

    app.get(
      '/imports/:id',
      {
        schema: {
          tags: ['Imports'],
          summary: 'An import: its status, progress (rows done of total), what it created or its problems',
          params: ImportParamsSchema,
          response: { 200: ImportJobSchema, ...errorResponses('FORBIDDEN') },
        },
      },
      async (req) => {
        refuseSandbox(req);
        return service.getImport(req.auth.organizationId, req.params.id);
      },
    );

    app.get(
      '/exports/posts',
      {
        schema: {
          tags: ['Imports'],
          summary: 'Export the posts of a window as CSV or JSON, in the format POST /imports takes back',
          querystring: ExportQuerySchema,
          response: {
            200: {
              description: 'the file, in the format asked for',
              content: {
                'text/csv': { schema: z.string().describe('CSV with a header line (format=csv)') },
                'application/json': { schema: z.array(z.record(z.string(), z.unknown())).describe('one object per row (format=json)') },
              },
            },
            ...errorResponses('FORBIDDEN'),
          },
        },
      },
      async (req, reply) => {
        refuseSandbox(req);
        const file = await service.exportPosts(req.auth.organizationId, req.query);
        return reply
          .header('content-type', req.query.format === 'json' ? 'application/json; charset=utf-8' : 'text/csv; charset=utf-8')
          .header('content-disposition', `attachment; filename="posts.${req.query.format}"`)
          .send(file);
      },
    );
  };
}
