import { AppError, notFound, validationError, type FieldError } from '../../errors.js';
import type { Tx } from '../../db/client.js';
import type { Clock } from '../../lib/clock.js';
import { isUuid } from '../../lib/ids.js';
import type { MediaRepository } from '../media/media.repository.js';
import type { SignatureRow, TemplateRow, TemplatesRepository } from './templates.repository.js';
import {
  PLACEHOLDER_RE,
  type CreateSignatureBody,
  type CreateTemplateBody,
  type RenderBody,
  type TemplateBody,
  type UpdateSignatureBody,
  type UpdateTemplateBody,
} from './templates.schemas.js';

/** The placeholder names in `texts`, in order of first appearance. */
export function placeholdersOf(texts: string[]): string[] {
  const out: string[] = [];
  for (const t of texts) for (const m of t.matchAll(PLACEHOLDER_RE)) if (!out.includes(m[1]!)) out.push(m[1]!);
  return out;
}

const textsOfBody = (body: TemplateBody) => body.posts.flatMap((p) => p.value.map((v) => v.content));

/**
 * `content` with `signature` at its end, after a blank line; unchanged when it already ends with
 * it (so applying twice never doubles it).
 */
export function appendSignature(content: string, signature: string): string {
  const text = content.trimEnd();
  const sig = signature.trim();
  if (sig === '' || text.endsWith(sig)) return content;
  return text === '' ? sig : `${text}\n\n${sig}`;
}

/** Whether two auto-add signatures' channel lists overlap (empty = every channel). */
const overlaps = (a: string[], b: string[]) => a.length === 0 || b.length === 0 || a.some((id) => b.includes(id));

/** The auto-add signature that applies to a channel (at most one does). */
export function autoSignatureFor(list: Pick<SignatureRow, 'autoAdd' | 'integrationIds' | 'content'>[], integrationId: string) {
  return list.find((s) => s.autoAdd && (s.integrationIds.length === 0 || s.integrationIds.includes(integrationId)));
}

/**
 * Post templates and signatures (issue 31 part 4): templates are partial create-posts bodies with
 * `{{placeholders}}`, rendered into a body ready for `POST /posts`; signatures are appended to a
 * post's first item, automatically per channel (auto-add) or on demand.
 */
export function createTemplatesService(deps: { templates: TemplatesRepository; media: Pick<MediaRepository, 'findLive'>; clock: Clock }) {
  const { templates: repo, clock } = deps;
  const now = () => new Date(clock.now());

  function templateView(row: TemplateRow) {
    const body = row.body as TemplateBody;
    return {
      id: row.id,
      name: row.name,
      description: row.description,
      body,
      placeholders: placeholdersOf(textsOfBody(body)),
      createdAt: row.createdAt.toISOString(),
      updatedAt: row.updatedAt.toISOString(),
    };
  }

  function signatureView(row: SignatureRow) {
    return {
      id: row.id,
      name: row.name,
      content: row.content,
      autoAdd: row.autoAdd,
      integrationIds: row.integrationIds,
      createdAt: row.createdAt.toISOString(),
      updatedAt: row.updatedAt.toISOString(),
    };
  }

  /** The ids among `ids` that are not live channels of the organisation. */
  async function unknownChannels(organizationId: string, ids: string[]) {
    const known = new Set((await repo.listChannels(organizationId, [...new Set(ids.filter(isUuid))])).map((c) => c.id));
    return new Set(ids.filter((id) => !known.has(id)));
  }

  /** Checks a template body's channels and media (the organisation's own), answering it with each image's stored path. */
  async function checkBody(organizationId: string, body: TemplateBody): Promise<TemplateBody> {
    const fields: FieldError[] = [];
    const unknown = await unknownChannels(organizationId, body.posts.flatMap((p) => (p.integration ? [p.integration.id] : [])));
    body.posts.forEach((p, i) => {
      if (p.integration && unknown.has(p.integration.id)) fields.push({ path: `body.posts.${i}.integration.id`, message: 'No channel with this id in your organisation' });
    });
    const images = body.posts.flatMap((p) => p.value.flatMap((v) => v.image ?? []));
    const rows = await deps.media.findLive(organizationId, images.map((m) => m.id), images.map((m) => m.path));
    const byId = new Map(rows.map((m) => [m.id, m]));
    const byPath = new Map(rows.map((m) => [m.path, m]));
    const checked: TemplateBody = {
      ...body,
      posts: body.posts.map((p, i) => ({
        ...p,
        value: p.value.map((v, j) => ({
          content: v.content,
          image: (v.image ?? []).map((img, k) => {
            const m = byId.get(img.id) ?? byPath.get(img.path);
            if (!m) fields.push({ path: `body.posts.${i}.value.${j}.image.${k}`, message: 'No media item with this id or path in your library' });
            else if (m.type === 'audio') fields.push({ path: `body.posts.${i}.value.${j}.image.${k}`, message: 'This media item is an audio file: posts carry pictures and videos' });
            return m ? { id: m.id, path: m.path } : img;
          }),
        })),
      })),
    };
    if (fields.length > 0) throw validationError(fields);
    return checked;
  }

  const nameTaken = (what: string) => new AppError('CONFLICT', `A ${what} with this name already exists`, { fields: [{ path: 'name', message: `A ${what} with this name already exists` }] });

  async function getTemplateRow(organizationId: string, id: string) {
    const row = isUuid(id) ? await repo.findTemplate(organizationId, id) : undefined;
    if (!row) throw notFound('Template');
    return row;
  }

  async function getSignatureRow(organizationId: string, id: string) {
    const row = isUuid(id) ? await repo.findSignature(organizationId, id) : undefined;
    if (!row) throw notFound('Signature');
    return row;
  }

  /** Every id must be a channel of the organisation (`integrationIds.N`); answers them without repeats. */
  async function checkSignatureChannels(organizationId: string, ids: string[]) {
    const unknown = await unknownChannels(organizationId, ids);
    const fields = ids.flatMap((id, i) => (unknown.has(id) ? [{ path: `integrationIds.${i}`, message: `Unknown channel ${id}` }] : []));
    if (fields.length > 0) throw validationError(fields);
    return [...new Set(ids)];
  }

  /** In the organisation's lock: the name is free and no other auto-add signature covers these channels. */
  async function checkSignatureWrite(tx: Tx, organizationId: string, next: { name: string; autoAdd: boolean; integrationIds: string[] }, exceptId?: string) {
    const others = (await repo.listSignatures(organizationId, tx)).filter((s) => s.id !== exceptId);
    if (others.some((s) => s.name.toLowerCase() === next.name.toLowerCase())) throw nameTaken('signature');
    if (!next.autoAdd) return;
    const clash = others.find((s) => s.autoAdd && overlaps(s.integrationIds, next.integrationIds));
    if (clash) {
      const message = `The auto-add signature "${clash.name}" already applies to ${clash.integrationIds.length === 0 || next.integrationIds.length === 0 ? 'every channel or some of these' : 'some of these channels'}: at most one auto-add signature per channel`;
      throw new AppError('CONFLICT', message, { fields: [{ path: 'integrationIds', message }] });
    }
  }

  return {
    listTemplates: async (organizationId: string) => (await repo.listTemplates(organizationId)).map(templateView),

    getTemplate: async (organizationId: string, id: string) => templateView(await getTemplateRow(organizationId, id)),

    /**
     * The organisation's templates by lower-cased name, as a bulk import uses them (a row's
     * `template` column): each channel's first text and settings, or the generic entry's.
     */
    async templatesByName(organizationId: string) {
      const out = new Map<string, { name: string; placeholders: string[]; entryFor(channelId: string): { text: string; settings?: Record<string, unknown> } }>();
      for (const row of await repo.listTemplates(organizationId)) {
        const view = templateView(row);
        const generic = view.body.posts.find((p) => !p.integration) ?? view.body.posts[0];
        out.set(row.name.toLowerCase(), {
          name: row.name,
          placeholders: view.placeholders,
          entryFor(channelId) {
            const own = view.body.posts.find((p) => p.integration?.id === channelId);
            const entry = own ?? generic;
            // another channel's settings may not fit this one: only its text is taken
            return { text: entry?.value[0]?.content ?? '', ...(own?.settings ? { settings: own.settings } : {}) };
          },
        });
      }
      return out;
    },

    /** `{{name}}` placeholders filled from `values` (a missing one is left empty). */
    fill: (text: string, values: Record<string, string>) => text.replace(PLACEHOLDER_RE, (_, n: string) => values[n] ?? ''),

    async createTemplate(organizationId: string, body: CreateTemplateBody, userId?: string | null) {
      const checked = await checkBody(organizationId, body.body);
      const row = await repo.lockedForOrg(organizationId, async (tx) => {
        if (await repo.findTemplateByName(tx, organizationId, body.name)) throw nameTaken('template');
        const at = now();
        return repo.insertTemplate(tx, { organizationId, name: body.name, description: body.description ?? '', body: checked, createdByUserId: userId ?? null, createdAt: at, updatedAt: at });
      });
      return templateView(row);
    },

    async updateTemplate(organizationId: string, id: string, body: UpdateTemplateBody) {
      await getTemplateRow(organizationId, id);
      const checked = body.body !== undefined ? await checkBody(organizationId, body.body) : undefined;
      const row = await repo.lockedForOrg(organizationId, async (tx) => {
        if (body.name !== undefined && (await repo.findTemplateByName(tx, organizationId, body.name, id))) throw nameTaken('template');
        return repo.updateTemplate(tx, organizationId, id, {
          ...(body.name !== undefined ? { name: body.name } : {}),
          ...(body.description !== undefined ? { description: body.description } : {}),
          ...(checked !== undefined ? { body: checked } : {}),
          updatedAt: now(),
        });
      });
      if (!row) throw notFound('Template');
      return templateView(row);
    },

    async deleteTemplate(organizationId: string, id: string) {
      const row = isUuid(id) ? await repo.deleteTemplate(organizationId, id) : undefined;
      if (!row) throw notFound('Template');
      return { id: row.id, deleted: true as const };
    },

    /**
     * A body ready for `POST /posts`: for each channel (those given, else those the template names)
     * the template's entry for it (else its entry for no channel in particular), placeholders filled
     * from `values` (a missing one: 400 naming `values.<name>`), the channel's auto-add signature
     * appended to the first item.
     */
    async renderTemplate(organizationId: string, id: string, input: RenderBody) {
      const tpl = templateView(await getTemplateRow(organizationId, id));
      const generic = tpl.body.posts.find((p) => !p.integration) ?? tpl.body.posts[0]!;
      let entries: { integrationId: string; entry: TemplateBody['posts'][number] }[];
      if (input.integrations !== undefined) {
        const unknown = await unknownChannels(organizationId, input.integrations);
        const fields = input.integrations.flatMap((cid, i) => (unknown.has(cid) ? [{ path: `integrations.${i}`, message: 'No channel with this id in your organisation' }] : []));
        if (fields.length > 0) throw validationError(fields);
        if (input.integrations.length === 0) throw validationError([{ path: 'integrations', message: 'Name at least one channel' }]);
        entries = [...new Set(input.integrations)].map((cid) => {
          const own = tpl.body.posts.find((p) => p.integration?.id === cid);
          // Another channel's settings may not fit this one: only its text and media are taken.
          return { integrationId: cid, entry: own ?? (generic.integration ? { value: generic.value } : generic) };
        });
      } else {
        if (tpl.body.posts.some((p) => !p.integration)) throw validationError([{ path: 'integrations', message: 'Required: the template has an entry for no channel in particular' }]);
        entries = tpl.body.posts.map((p) => ({ integrationId: p.integration!.id, entry: p }));
      }

      const needed = placeholdersOf(entries.flatMap((e) => e.entry.value.map((v) => v.content)));
      const missing = needed.filter((n) => input.values[n] === undefined);
      if (missing.length > 0) throw validationError(missing.map((n) => ({ path: `values.${n}`, message: 'Required: a value for this placeholder' })));
      const fill = (text: string) => text.replace(PLACEHOLDER_RE, (_, n: string) => input.values[n] ?? '');

      const sigs = await repo.listSignatures(organizationId);
      const type = input.type ?? tpl.body.type ?? 'schedule';
      return {
        type,
        ...(input.date !== undefined ? { date: input.date } : {}),
        shortLink: tpl.body.shortLink ?? false,
        tags: tpl.body.tags ?? [],
        posts: entries.map(({ integrationId, entry }) => {
          const sig = autoSignatureFor(sigs, integrationId);
          return {
            integration: { id: integrationId },
            value: entry.value.map((v, k) => {
              const content = fill(v.content);
              return { content: k === 0 && sig ? appendSignature(content, sig.content) : content, image: v.image ?? [] };
            }),
            ...(entry.settings !== undefined ? { settings: entry.settings } : {}),
          };
        }),
      };
    },

    listSignatures: async (organizationId: string) => (await repo.listSignatures(organizationId)).map(signatureView),

    async createSignature(organizationId: string, body: CreateSignatureBody) {
      const integrationIds = await checkSignatureChannels(organizationId, body.integrationIds);
      const row = await repo.lockedForOrg(organizationId, async (tx) => {
        const next = { name: body.name, autoAdd: body.autoAdd, integrationIds };
        await checkSignatureWrite(tx, organizationId, next, undefined);
        const at = now();
        return repo.insertSignature(tx, { organizationId, ...next, content: body.content, createdAt: at, updatedAt: at });
      });
      return signatureView(row);
    },

    async updateSignature(organizationId: string, id: string, body: UpdateSignatureBody) {
      await getSignatureRow(organizationId, id);
      const integrationIds = body.integrationIds !== undefined ? await checkSignatureChannels(organizationId, body.integrationIds) : undefined;
      const row = await repo.lockedForOrg(organizationId, async (tx) => {
        const existing = await repo.findSignature(organizationId, id, tx);
        if (!existing) return undefined;
        const next = { name: body.name ?? existing.name, autoAdd: body.autoAdd ?? existing.autoAdd, integrationIds: integrationIds ?? existing.integrationIds };
        await checkSignatureWrite(tx, organizationId, next, id);
        return repo.updateSignature(tx, organizationId, id, { ...next, ...(body.content !== undefined ? { content: body.content } : {}), updatedAt: now() });
      });
      if (!row) throw notFound('Signature');
      return signatureView(row);
    },

    async deleteSignature(organizationId: string, id: string) {
      const row = isUuid(id) ? await repo.deleteSignature(organizationId, id) : undefined;
      if (!row) throw notFound('Signature');
      return { id: row.id, deleted: true as const };
    },

    /** The text with the signature at its end (on demand; not doubled if already there). */
    async applySignature(organizationId: string, id: string, input: { content: string; integrationId?: string }) {
      const sig = await getSignatureRow(organizationId, id);
      if (input.integrationId !== undefined && (await unknownChannels(organizationId, [input.integrationId])).size > 0) {
        throw validationError([{ path: 'integrationId', message: 'No channel with this id in your organisation' }]);
      }
      return { content: appendSignature(input.content, sig.content) };
    },
  };
}

export type TemplatesService = ReturnType<typeof createTemplatesService>;
