import multipart from '@fastify/multipart';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { AppError, fieldError } from '../../errors.js';
import { abortOnDisconnect } from '../../http/abort-on-disconnect.js';
import { errorResponses } from '../../http/error-schema.js';
import { PageQuerySchema } from '../../lib/pagination.js';
import { unstorableReason } from '../../lib/storable-text.js';
import type { ByteRange } from '../../core/media/storage.js';
import { MediaItemSchema, MediaPageSchema, MediaParamsSchema, MediaUsesSchema, UploadFromUrlBodySchema } from './media.schemas.js';
import type { MediaService } from './media.service.js';

const fileMissing = (message: string) => fieldError('file', message);

/** The media library under /public/v1: upload, list, delete. */
export function mediaRoutes(service: MediaService, limits: { maxImageBytes: number; maxVideoBytes: number; maxAudioBytes: number }): FastifyPluginAsyncZod {
  return async (app) => {
    // The service enforces the per-type caps; the parser only stops a file past the largest one.
    await app.register(multipart, { limits: { fileSize: Math.max(limits.maxImageBytes, limits.maxVideoBytes, limits.maxAudioBytes) + 1, files: 1, fields: 20 } });

    app.post(
      '/upload',
      {
        config: {
          documentedBody: {
            contentType: 'multipart/form-data',
            schema: {
              type: 'object',
              required: ['file'],
              properties: {
                file: {
                  type: 'string',
                  format: 'binary',
                  contentMediaType: 'application/octet-stream',
                  description: 'the file (JPEG, PNG, GIF, WebP, AVIF, TIFF, MP4 or QuickTime; the type is read from its bytes)',
                },
              },
            },
          },
        },
        schema: {
          tags: ['Media'],
          summary: 'Upload a media file (multipart, field `file`); the type is sniffed from the bytes',
          response: { 201: MediaItemSchema },
        },
      },
      async (req, reply) => {
        if (!req.isMultipart()) throw fileMissing('send multipart/form-data with the file in the field `file`');
        let part;
        try {
          part = await req.file();
        } catch (e) {
          // Reading the request's own multipart framing (a missing boundary, a broken part header)
          // can only fail on what the client sent.
          const status = (e as { statusCode?: number }).statusCode;
          if (status !== undefined && status !== 400) throw e;
          throw fileMissing(`the multipart body could not be read (${(e as Error).message})`);
        }
        if (!part) throw fileMissing('Required');
        if (part.fieldname !== 'file') {
          part.file.resume();
          throw fileMissing(`Required (the file came in the field \`${part.fieldname}\`)`);
        }
        // The multipart parser is this route's own: its file name is checked here as the request
        // guards check JSON bodies (request-guards.ts).
        const badName = unstorableReason(part.filename);
        if (badName) {
          part.file.resume();
          throw fieldError('file', `The file name: ${badName.charAt(0).toLowerCase()}${badName.slice(1)}`);
        }
        const disconnect = abortOnDisconnect(reply);
        try {
          const item = await service.upload(req.auth.organizationId, {
            stream: part.file,
            filename: part.filename,
            truncated: () => part.file.truncated,
            signal: disconnect.signal,
          });
          return await reply.status(201).send(item);
        } finally {
          disconnect.done();
        }
      },
    );

    app.post(
      '/upload-from-url',
      {
        schema: {
          tags: ['Media'],
          summary: 'Import a media file from a public http(s) URL; the type is sniffed from the bytes',
          description:
            'The service downloads the file itself. Only public addresses are reached (checked after DNS resolution and again at every redirect, at most 5); size caps and a time limit apply.',
          body: UploadFromUrlBodySchema,
          response: { 201: MediaItemSchema },
        },
      },
      async (req, reply) => {
        const disconnect = abortOnDisconnect(reply);
        try {
          const item = await service.uploadFromUrl(req.auth.organizationId, req.body.url, disconnect.signal);
          return await reply.status(201).send(item);
        } finally {
          disconnect.done();
        }
      },
    );

    app.get(
      '/media',
      {
        schema: {
          tags: ['Media'],
          summary: "List the organisation's media, newest first, 100 per page",
          querystring: PageQuerySchema,
          response: { 200: MediaPageSchema },
        },
      },
      async (req) => service.list(req.auth.organizationId, req.query.page),
    );

    app.get(
      '/media/:id/uses',
      {
        schema: {
          tags: ['Media'],
          summary: 'Extension: the posts that use a media item, and whether they keep it from being deleted',
          params: MediaParamsSchema,
          response: { 200: MediaUsesSchema },
        },
      },
      async (req) => service.uses(req.auth.organizationId, req.params.id),
    );

    app.delete(
      '/media/:id',
      {
        schema: {
          tags: ['Media'],
          summary: 'Delete a media item (refused while a draft or queued post uses it)',
          params: MediaParamsSchema,
          response: { 200: MediaItemSchema, ...errorResponses('CONFLICT') },
        },
      },
      async (req) => service.remove(req.auth.organizationId, req.params.id),
    );
  };
}

/** `Range: bytes=a-b | a- | -n` (one range) → inclusive byte range. */
export function parseRange(header: string | undefined, size: number): ByteRange | 'unsatisfiable' | undefined {
  if (!header) return undefined;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return undefined; // not a single byte range: ignore it, send the whole file
  let start: number;
  let end: number;
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0) return 'unsatisfiable';
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(m[1]);
    end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  }
  if (start >= size || start > end) return 'unsatisfiable';
  return { start, end };
}

/** `GET /media/<yyyy>/<mm>/<file>`: the stored files, public and without credentials. */
export function mediaFilesRoutes(service: MediaService): FastifyPluginAsyncZod {
  return async (app) => {
    app.get('/media/*', { schema: { hide: true } }, async (req, reply) => {
      const key = (req.params as { '*': string })['*'];
      const file = await service.openFile(key, (size) => parseRange(req.headers.range, size));
      if (!file) throw new AppError('NOT_FOUND', 'Media file not found');
      if (file.redirect) {
        // Cached for half the URL's lifetime, so a cached redirect still leads to a valid URL.
        const maxAge = Math.floor(file.redirect.expiresInSeconds / 2);
        return reply.header('cache-control', `private, max-age=${maxAge}`).redirect(file.redirect.url, 302);
      }
      void reply.header('accept-ranges', 'bytes').header('cache-control', 'public, max-age=31536000, immutable').header('x-content-type-options', 'nosniff');
      if ('unsatisfiable' in file) {
        return reply.status(416).header('content-range', `bytes */${file.size}`).send();
      }
      void reply.type(file.contentType);
      if (file.range) {
        void reply
          .status(206)
          .header('content-range', `bytes ${file.range.start}-${file.range.end}/${file.size}`)
          .header('content-length', String(file.range.end - file.range.start + 1));
      } else {
        void reply.header('content-length', String(file.size));
      }
      return reply.send(file.stream);
    });
  };
}
