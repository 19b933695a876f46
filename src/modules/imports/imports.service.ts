import { DateTime, IANAZone } from 'luxon';
import { AppError, notFound, validationError } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import type { Tx } from '../../db/client.js';
import type { RemoteFetcher } from '../../core/media/remote-fetch.js';
import { emitEvent } from '../../core/events/events.js';
import type { PlansService } from '../plans/plans.service.js';
import type { PostsService } from '../posts/posts.service.js';
import type { MediaService } from '../media/media.service.js';
import type { MediaRepository } from '../media/media.repository.js';
import type { TemplatesService } from '../templates/templates.service.js';
import type { PostsRepository } from '../posts/posts.repository.js';
import { CreatePostsBodySchema, MAX_INSTANT_MS, type CreatePostsBody } from '../posts/posts.schemas.js';
import { FileFormatError, jsonRows, parseFile, writeFile, type Column, type FileRow, type ImportFormat } from './import-format.js';
import type { ImportRow, ImportsRepository } from './imports.repository.js';

/** One problem of a file: its row (1-based, the CSV header not counted) and column; null for the whole file. */
export interface Problem {
  row: number | null;
  column: string | null;
  message: string;
}

/** What one row would create (dry run). */
export interface PlannedRow {
  row: number;
  group: string;
  channel: { id: string; name: string; identifier: string } | null;
  date: string | null;
  type: 'schedule' | 'draft';
  position: number;
  text: string;
}

export type ImportInput = { format: ImportFormat; text: string } | { format: 'json'; value: unknown };

export interface ImportsOptions {
  /** files with more rows than this are imported in the background (202 and a job to poll) */
  backgroundThreshold: number;
  /** parallel media checks and downloads */
  mediaConcurrency: number;
  /** how often a running background import marks its row alive */
  heartbeatMs: number;
  /** an unfinished background import whose row was not marked alive for this long is taken over (its process is gone) */
  staleMs: number;
  /**
   * This process is the only one on the database (embedded PGlite, which a lock file keeps to one
   * process): an unfinished import it is not running itself is orphaned at once, whatever its heartbeat.
   */
  soleProcess: boolean;
}

/** Groups written per `createPostsMany` call (the progress of a background import moves by these). */
const IMPORT_SLICE = 250;

export const DEFAULT_IMPORTS_OPTIONS: ImportsOptions = { backgroundThreshold: 2000, mediaConcurrency: 8, heartbeatMs: 20_000, staleMs: 90_000, soleProcess: false };

type Channel = Awaited<ReturnType<ImportsRepository['listChannels']>>[number];

interface Item {
  row: number;
  text: string;
  media: string[];
  delay: number;
  position: number;
}
interface Entry {
  channel: Channel;
  settings: Record<string, unknown> | undefined;
  items: Item[];
}
interface Group {
  key: string;
  date: Date;
  type: 'schedule' | 'draft';
  tags: string[];
  entries: Entry[];
  rows: number[];
}

const ITEM_COLUMNS: Record<string, Column> = { content: 'text', image: 'media', delay: 'delay', id: 'position' };

type TemplatesByName = Awaited<ReturnType<TemplatesService['templatesByName']>>;

/** Bulk import and export of posts (issue 30 part 4): every post is made by the posts service. */
export function createImportsService(deps: {
  imports: ImportsRepository;
  posts: PostsService;
  postsRepo: Pick<PostsRepository, 'countScheduledInMonth'>;
  plans: PlansService;
  media: Pick<MediaService, 'uploadFromUrl'>;
  mediaRepo: Pick<MediaRepository, 'findLive'>;
  remote: RemoteFetcher;
  maxMediaBytes: number;
  clock: Clock;
  options?: Partial<ImportsOptions>;
  logger?: { warn(obj: unknown, msg?: string): void };
  /** the organisation's post templates (a row's `template` column, issue 31) */
  templates?: Pick<TemplatesService, 'templatesByName' | 'fill'>;
}) {
  const options = { ...DEFAULT_IMPORTS_OPTIONS, ...deps.options };
  const now = () => new Date(deps.clock.now());
  /** progress of the background imports this process runs (rows done), by import id */
  const running = new Map<string, number>();
  const background = new Set<Promise<void>>();

  async function readRows(input: ImportInput): Promise<FileRow[]> {
    try {
      return 'value' in input ? jsonRows(input.value) : await parseFile(input.format, input.text);
    } catch (e) {
      if (e instanceof FileFormatError) throw validationError([{ path: 'file', message: e.message }]);
      throw e;
    }
  }

  function channelFinder(channels: Channel[]) {
    const byId = new Map(channels.map((c) => [c.id, c]));
    const byInternal = new Map<string, Channel[]>();
    const byName = new Map<string, Channel[]>();
    for (const c of channels) {
      byInternal.set(c.internalId, [...(byInternal.get(c.internalId) ?? []), c]);
      const n = c.name.trim().toLowerCase();
      byName.set(n, [...(byName.get(n) ?? []), c]);
    }
    return (ref: string): Channel | string => {
      const c = byId.get(ref);
      if (c) return c;
      for (const [list, what] of [
        [byInternal.get(ref), 'account id'],
        [byName.get(ref.toLowerCase()), 'name'],
      ] as const) {
        if (list?.length === 1) return list[0]!;
        if (list && list.length > 1) return `Several channels have this ${what}: use the channel id`;
      }
      return 'No channel with this id, account id or name in your organisation';
    };
  }

  function parseDate(value: string | undefined, zone: string | undefined, problem: (column: string, message: string) => void): Date | undefined {
    if (value === undefined || value.trim() === '') {
      problem('date', 'Required');
      return undefined;
    }
    const tz = zone?.trim();
    if (tz && !IANAZone.isValidZone(tz)) {
      problem('timezone', `Not an IANA time zone (e.g. Europe/Berlin): ${tz}`);
      return undefined;
    }
    const hasOffset = /(Z|[+-]\d{2}(:?\d{2})?)$/i.test(value.trim()) && /T|\s/.test(value.trim());
    if (!tz && !hasOffset) {
      problem('date', 'Give an offset (2026-09-01T09:00:00+02:00 or …Z), or a local date-time with a timezone column');
      return undefined;
    }
    const dt = DateTime.fromISO(value.trim().replace(' ', 'T'), tz ? { zone: tz } : { setZone: true });
    if (!dt.isValid) {
      problem('date', `Not an ISO 8601 date-time: ${value}`);
      return undefined;
    }
    const ms = dt.toMillis();
    if (ms < 0 || ms > MAX_INSTANT_MS) {
      problem('date', 'Must be between 1970 and 9999');
      return undefined;
    }
    return new Date(ms);
  }

  /** Rows → groups of posts, with every problem a row shows on its own. */
  function plan(rows: FileRow[], channels: Channel[], templates: TemplatesByName = new Map()) {
    const find = channelFinder(channels);
    const problems: Problem[] = [];
    const planned: PlannedRow[] = [];
    const groups = new Map<string, { rows: { n: number; channel?: Channel; date?: Date; type: 'schedule' | 'draft'; tags: string[]; settings?: Record<string, unknown>; item: Item }[] }>();
    rows.forEach((r, i) => {
      const n = i + 1;
      const problem = (column: string, message: string) => problems.push({ row: n, column, message });
      let channel: Channel | undefined;
      const ref = r.channel?.trim() ?? '';
      if (ref === '') problem('channel', 'Required');
      else {
        const found = find(ref);
        if (typeof found === 'string') problem('channel', found);
        else channel = found;
      }
      const date = parseDate(r.date, r.timezone, problem);
      const typeValue = (r.type ?? '').trim().toLowerCase();
      if (typeValue !== '' && typeValue !== 'schedule' && typeValue !== 'draft') problem('type', 'Must be schedule or draft');
      const type = typeValue === 'draft' ? 'draft' : 'schedule';
      const int = (column: 'position' | 'delay', max: number) => {
        const v = (r[column] ?? '').trim();
        if (v === '') return 0;
        if (!/^\d+$/.test(v) || Number(v) > max) {
          problem(column, `Must be a whole number from 0 to ${max}`);
          return 0;
        }
        return Number(v);
      };
      const position = int('position', 99);
      const delay = int('delay', 60 * 24 * 30);
      const media = (r.media ?? '').split(/[\s|]+/).filter((m) => m !== '');
      for (const m of media) {
        if (!URL.canParse(m) || !['http:', 'https:'].includes(new URL(m).protocol)) problem('media', `Not an http(s) URL: ${m}`);
      }
      let text = r.text ?? '';
      // A template (by name): its text for the channel, placeholders filled from `values` (a JSON
      // object), where the row gives no text; its settings where the row gives none.
      let templateSettings: Record<string, unknown> | undefined;
      const templateName = (r.template ?? '').trim();
      if (templateName !== '') {
        const tpl = templates.get(templateName.toLowerCase());
        let values: Record<string, string> = {};
        if ((r.values ?? '').trim() !== '') {
          try {
            const v = JSON.parse(r.values!) as unknown;
            if (typeof v !== 'object' || v === null || Array.isArray(v) || Object.values(v).some((x) => typeof x !== 'string' && typeof x !== 'number')) problem('values', 'Must be a JSON object of placeholder values (text or numbers)');
            else values = Object.fromEntries(Object.entries(v).map(([k, x]) => [k, String(x)]));
          } catch (e) {
            problem('values', `Not valid JSON: ${(e as Error).message}`);
          }
        }
        if (!tpl) problem('template', `No template named "${templateName}" in your organisation`);
        else if (channel) {
          const entry = tpl.entryFor(channel.id);
          const missing = tpl.placeholders.filter((name) => entry.text.includes(`{{${name}}}`) && values[name] === undefined);
          if (missing.length > 0) problem('values', `Give ${missing.map((m) => `"${m}"`).join(', ')} for the template "${tpl.name}"`);
          if (text.trim() === '') text = deps.templates!.fill(entry.text, values);
          templateSettings = entry.settings;
        }
      } else if ((r.values ?? '').trim() !== '') problem('values', 'Placeholder values need a template column');
      if (text.trim() === '' && media.length === 0 && templateName === '') problem('text', 'Required (or give media, or a template)');
      let settings: Record<string, unknown> | undefined = templateSettings;
      if (r.settings !== undefined && r.settings.trim() !== '') {
        try {
          const v = JSON.parse(r.settings) as unknown;
          if (typeof v !== 'object' || v === null || Array.isArray(v)) problem('settings', 'Must be a JSON object');
          else settings = v as Record<string, unknown>;
        } catch (e) {
          problem('settings', `Not valid JSON: ${(e as Error).message}`);
        }
      }
      const tags = (r.tags ?? '').split('|').map((t) => t.trim()).filter((t) => t !== '');
      const key = r.group?.trim() ? `g:${r.group.trim()}` : `r:${n}`;
      const g = groups.get(key) ?? { rows: [] };
      g.rows.push({ n, channel, date, type, tags, settings, item: { row: n, text, media, delay, position } });
      groups.set(key, g);
      planned.push({
        row: n,
        group: r.group?.trim() || `row ${n}`,
        channel: channel ? { id: channel.id, name: channel.name, identifier: channel.identifier } : null,
        date: date?.toISOString() ?? null,
        type,
        position,
        text: [...text].slice(0, 80).join(''),
      });
    });

    const out: Group[] = [];
    for (const [key, g] of groups) {
      const byChannel = new Map<string, typeof g.rows>();
      for (const r of g.rows) {
        if (!r.channel) continue;
        byChannel.set(r.channel.id, [...(byChannel.get(r.channel.id) ?? []), r]);
      }
      const entries: Entry[] = [];
      let root: (typeof g.rows)[number] | undefined;
      let broken = g.rows.some((r) => !r.channel || !r.date);
      for (const list of byChannel.values()) {
        list.sort((a, b) => a.item.position - b.item.position || a.n - b.n);
        for (let k = 1; k < list.length; k++) {
          if (list[k]!.item.position === list[k - 1]!.item.position) {
            problems.push({ row: list[k]!.n, column: 'position', message: `Row ${list[k - 1]!.n} has the same group, channel and position` });
            broken = true;
          }
        }
        const first = list[0]!;
        root ??= first;
        for (const r of list) {
          if (r.date && root.date && r.date.getTime() !== root.date.getTime() && r === first) {
            problems.push({ row: r.n, column: 'date', message: `The rows of one group share one date (row ${root.n} has ${root.date.toISOString()})` });
            broken = true;
          }
          if (r.type !== root.type && r === first) {
            problems.push({ row: r.n, column: 'type', message: `The rows of one group share one type (row ${root.n} is ${root.type})` });
            broken = true;
          }
        }
        entries.push({ channel: first.channel!, settings: first.settings, items: list.map((r) => r.item) });
      }
      if (broken || !root) continue;
      out.push({ key, date: root.date!, type: root.type, tags: root.tags, entries, rows: g.rows.map((r) => r.n) });
    }
    return { problems, planned, groups: out };
  }

  /** The posts request of one group; `media` turns a file's URL into what the request names. */
  function bodyOf(g: Group, media: (url: string) => { id: string } | { path: string } | undefined): CreatePostsBody {
    return CreatePostsBodySchema.parse({
      type: g.type,
      date: g.date.toISOString(),
      tags: g.tags.map((t) => ({ value: t, label: t })),
      posts: g.entries.map((e) => ({
        integration: { id: e.channel.id },
        settings: e.settings,
        value: e.items.map((it) => ({
          content: it.text,
          delay: it.delay,
          image: it.media.map(media).filter((x): x is NonNullable<typeof x> => x !== undefined),
        })),
      })),
    });
  }

  /** A validation error of `createPosts` for one group, as row/column problems. */
  function mapErrors(g: Group, err: unknown): Problem[] {
    if (!(err instanceof AppError) || err.code !== 'VALIDATION_FAILED') throw err;
    const fields = err.extra.fields ?? [{ path: '', message: err.message }];
    return fields.map((f) => {
      const parts = f.path.split('.');
      if (parts[0] === 'posts' && parts.length > 1) {
        const entry = g.entries[Number(parts[1])];
        if (entry) {
          if (parts[2] === 'value' && parts.length > 3) {
            const item = entry.items[Number(parts[3])];
            return { row: item?.row ?? entry.items[0]!.row, column: ITEM_COLUMNS[parts[4] ?? ''] ?? 'text', message: f.message };
          }
          const column = parts[2] === 'settings' ? 'settings' : parts[2] === 'integration' ? 'channel' : 'settings';
          return { row: entry.items[0]!.row, column, message: f.message };
        }
      }
      const column = parts[0] === 'date' ? 'date' : parts[0] === 'tags' ? 'tags' : null;
      return { row: g.entries[0]?.items[0]?.row ?? null, column, message: f.message };
    });
  }

  async function mapLimit<T, R>(items: T[], fn: (x: T) => Promise<R>): Promise<R[]> {
    const out: R[] = new Array<R>(items.length);
    let next = 0;
    const workers = Array.from({ length: Math.min(options.mediaConcurrency, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i]!);
      }
    });
    await Promise.all(workers);
    return out;
  }

  /** Library items the file names by their service URL (an export of this organisation), by URL. */
  async function libraryMedia(organizationId: string, groups: Group[]) {
    const urls = [...new Set(groups.flatMap((g) => g.entries.flatMap((e) => e.items.flatMap((it) => it.media))))];
    const found = urls.length ? await deps.mediaRepo.findLive(organizationId, [], urls) : [];
    return { urls, library: new Map(found.map((m) => [m.path, m])) };
  }

  function mediaProblems(groups: Group[], failed: Map<string, string>): Problem[] {
    const problems: Problem[] = [];
    for (const g of groups) for (const e of g.entries) for (const it of e.items) for (const m of it.media) {
      const why = failed.get(m);
      if (why !== undefined) problems.push({ row: it.row, column: 'media', message: `${m} cannot be fetched: ${why}` });
    }
    return problems;
  }

  /** Every check short of writing: the rows, the media (reachable, not downloaded), each group through the posts service's dry run. */
  async function check(organizationId: string, rows: FileRow[], opts: { postsDryRun: boolean } = { postsDryRun: true }) {
    const channels = await deps.imports.listChannels(organizationId);
    const usesTemplates = rows.some((r) => (r.template ?? '').trim() !== '');
    const planned = plan(rows, channels, usesTemplates && deps.templates ? await deps.templates.templatesByName(organizationId) : undefined);
    const { urls, library } = await libraryMedia(organizationId, planned.groups);
    const failed = new Map<string, string>();
    await mapLimit(
      urls.filter((u) => !library.has(u)),
      async (url) => {
        try {
          const file = await deps.remote.open(url, { maxBytes: deps.maxMediaBytes });
          file.cancel();
        } catch (e) {
          failed.set(url, e instanceof Error ? e.message : String(e));
        }
      },
    );
    const problems = [...planned.problems, ...mediaProblems(planned.groups, failed)];
    if (opts.postsDryRun) {
      const checked = await deps.posts.createPostsMany(
        organizationId,
        planned.groups.map((g) => bodyOf(g, (u) => (library.has(u) ? { path: u } : undefined))),
        { creationMethod: 'IMPORT', dryRun: true },
      );
      for (const { index, error } of checked.refused) problems.push(...mapErrors(planned.groups[index]!, error));
    }
    problems.sort((a, b) => (a.row ?? 0) - (b.row ?? 0));
    return { ...planned, problems, library };
  }

  function failWith(problems: Problem[]): never {
    throw validationError(problems.map((p) => ({ path: p.row === null ? 'file' : `rows.${p.row}.${p.column ?? 'row'}`, message: p.message })));
  }

  /** Creates every group in one transaction (or nothing); `onProgress` hears rows done. */
  async function create(organizationId: string, rows: FileRow[], format: ImportFormat, importId: string | undefined, onProgress?: (done: number) => void) {
    // The posts service's own checks run once, in the transaction below: it validates each group
    // before writing it, so every group's problems are collected there and the transaction rolls back.
    const checked = await check(organizationId, rows, { postsDryRun: false });
    // A file with problems gets the whole list, the posts service's checks included.
    if (checked.problems.length > 0) failWith((await check(organizationId, rows)).problems);
    const { groups, library } = checked;
    // Media not in the library are downloaded into it first (a failed import leaves them there, unused).
    const uploaded = new Map<string, string>();
    const failed = new Map<string, string>();
    const urls = [...new Set(groups.flatMap((g) => g.entries.flatMap((e) => e.items.flatMap((it) => it.media))))].filter((u) => !library.has(u));
    await mapLimit(urls, async (url) => {
      try {
        uploaded.set(url, (await deps.media.uploadFromUrl(organizationId, url)).id);
      } catch (e) {
        failed.set(url, e instanceof Error ? e.message : String(e));
      }
    });
    if (failed.size > 0) failWith(mediaProblems(groups, failed));
    const mediaRef = (u: string) => (library.has(u) ? { path: u } : uploaded.has(u) ? { id: uploaded.get(u)! } : undefined);

    const at = now();
    const scheduled: Date[] = [];
    let posts = 0;
    // The plan's scheduled-post limit, once for the whole file (per month, as the posts service counts;
    // before the transaction, as the posts service checks it: PGlite runs one transaction at a time).
    const perMonth = new Map<string, { date: Date; n: number }>();
    for (const g of groups) {
      if (g.type === 'draft') continue;
      const k = `${g.date.getUTCFullYear()}-${g.date.getUTCMonth()}`;
      const m = perMonth.get(k) ?? { date: g.date, n: 0 };
      m.n += g.entries.length;
      perMonth.set(k, m);
    }
    for (const { date, n } of perMonth.values()) {
      const month = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1));
      const next = new Date(Math.min(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1), MAX_INSTANT_MS));
      await deps.plans.assertWithinLimit(organizationId, 'scheduledPostsPerMonth', () => deps.postsRepo.countScheduledInMonth(organizationId, month, next), n);
    }
    const row = await deps.imports.transaction(async (tx: Tx) => {
      // A background import's row is locked for the run: a second process taking it over (its
      // heartbeat looked stale) waits here, then finds it finished and creates nothing.
      if (importId !== undefined) {
        const status = await deps.imports.lockForRun(importId, tx);
        if (status !== 'pending' && status !== 'running') return undefined;
      }
      let done = 0;
      const problems: Problem[] = [];
      // In slices, for the progress of a background import; once a group is refused, the rest are
      // only checked (the transaction is rolled back), so every problem of the file is listed.
      for (let i = 0; i < groups.length; i += IMPORT_SLICE) {
        const slice = groups.slice(i, i + IMPORT_SLICE);
        const bodies = slice.map((g) => bodyOf(g, mediaRef));
        const r = problems.length > 0 ? await deps.posts.createPostsMany(organizationId, bodies, { creationMethod: 'IMPORT', dryRun: true, tx }) : await deps.posts.createPostsMany(organizationId, bodies, { creationMethod: 'IMPORT', tx });
        for (const { index, error } of r.refused) problems.push(...mapErrors(slice[index]!, error));
        scheduled.push(...r.scheduled);
        for (const g of slice) {
          posts += g.entries.length;
          done += g.rows.length;
        }
        onProgress?.(done);
      }
      if (problems.length > 0) failWith(problems);
      const doneAt = now();
      const values = { status: 'completed' as const, doneRows: rows.length, createdGroups: groups.length, createdPosts: posts, problems: [], source: null, updatedAt: doneAt, completedAt: doneAt };
      const saved = importId
        ? (await deps.imports.update(importId, values, tx), { id: importId })
        : await deps.imports.insert({ organizationId, format, totalRows: rows.length, createdAt: at, ...values }, tx);
      await emitEvent(tx, organizationId, 'import.completed', { import: { id: saved.id, format, rows: rows.length }, created: { groups: groups.length, posts }, completedAt: doneAt.toISOString() }, doneAt);
      return saved;
    });
    if (!row) return undefined;
    deps.posts.notifyScheduled(scheduled);
    return { id: row.id, groups: groups.length, posts };
  }

  function toOut(r: ImportRow) {
    const done = running.get(r.id) ?? r.doneRows;
    return {
      id: r.id,
      status: r.status,
      format: r.format as ImportFormat,
      progress: { done, total: r.totalRows },
      created: { groups: r.createdGroups, posts: r.createdPosts },
      problems: r.problems,
      createdAt: r.createdAt.toISOString(),
      completedAt: r.completedAt?.toISOString() ?? null,
    };
  }

  /**
   * Runs a background import whose rows are kept on its row (`source`), so that a process that
   * stops half-way leaves it to be taken over (`resumeStale`): the posts are written in one
   * transaction, so a run that did not commit left nothing behind and the next starts from the top.
   */
  async function runInBackground(organizationId: string, id: string, rows: FileRow[], format: ImportFormat) {
    running.set(id, 0);
    const heartbeat = setInterval(() => {
      deps.imports.touchRunning(id, now()).catch((err: unknown) => deps.logger?.warn({ err, importId: id }, 'import heartbeat failed'));
    }, options.heartbeatMs);
    heartbeat.unref();
    try {
      await deps.imports.update(id, { status: 'running', updatedAt: now() });
      await create(organizationId, rows, format, id, (done) => running.set(id, done));
    } catch (e) {
      const problems: Problem[] =
        e instanceof AppError && e.code === 'VALIDATION_FAILED'
          ? (e.extra.fields ?? []).map((f) => {
              const [, row, column] = /^rows\.(\d+)\.(.*)$/.exec(f.path) ?? [];
              return { row: row ? Number(row) : null, column: column ?? null, message: f.message };
            })
          : [{ row: null, column: null, message: e instanceof AppError ? e.message : 'The import failed unexpectedly; nothing was created' }];
      if (!(e instanceof AppError)) deps.logger?.warn({ err: e }, 'background import failed');
      const at = now();
      await deps.imports.update(id, { status: 'failed', problems, source: null, updatedAt: at, completedAt: at }).catch((err: unknown) => deps.logger?.warn({ err }, 'could not record a failed import'));
    } finally {
      clearInterval(heartbeat);
      running.delete(id);
    }
  }

  function startBackground(organizationId: string, id: string, rows: FileRow[], format: ImportFormat) {
    const p = runInBackground(organizationId, id, rows, format);
    background.add(p);
    void p.finally(() => background.delete(p));
    return p;
  }

  return {
    /**
     * `POST /imports`: with `dryRun`, what every row would create and every problem (nothing is
     * written); else all rows in one transaction or none — a 400 lists the problems by row and
     * column. Files with more rows than the threshold are imported in the background (`job`).
     */
    async importFile(organizationId: string, input: ImportInput, opts: { dryRun: boolean }) {
      const rows = await readRows(input);
      if (rows.length === 0) throw validationError([{ path: 'file', message: 'The file has no rows' }]);
      if (opts.dryRun) {
        const checked = await check(organizationId, rows);
        return { kind: 'dryRun' as const, body: { dryRun: true as const, valid: checked.problems.length === 0, rows: checked.planned, problems: checked.problems } };
      }
      if (rows.length > options.backgroundThreshold) {
        const at = now();
        // The rows are kept on the import's row until it finished, so another process (or this one
        // restarted) can take over an import whose process stopped (`resumeStale`).
        const row = await deps.imports.insert({ organizationId, status: 'pending', format: input.format, totalRows: rows.length, source: rows, createdAt: at, updatedAt: at });
        void startBackground(organizationId, row.id, rows, input.format);
        return { kind: 'job' as const, body: toOut(row) };
      }
      const r = (await create(organizationId, rows, input.format, undefined))!;
      return { kind: 'done' as const, body: { id: r.id, status: 'completed' as const, rows: rows.length, created: { groups: r.groups, posts: r.posts } } };
    },

    async getImport(organizationId: string, id: string) {
      const r = await deps.imports.find(organizationId, id);
      if (!r) throw notFound('Import');
      return toOut(r);
    },

    /** `GET /exports/posts`: the window's posts as rows the import takes back (one row per item and channel). */
    async exportPosts(organizationId: string, q: { startDate: string; endDate: string; customer?: string; format: ImportFormat }) {
      const { posts } = await deps.posts.listPosts(organizationId, q);
      const rows: FileRow[] = [];
      for (const p of posts) {
        const items = [{ content: p.content, image: p.image, delay: 0 }, ...p.thread];
        items.forEach((it, k) => {
          rows.push({
            group: p.group,
            channel: p.integration.id,
            date: p.publishDate,
            type: p.state === 'DRAFT' ? 'draft' : 'schedule',
            position: String(k),
            delay: String(it.delay),
            text: it.content,
            media: it.image.map((m) => m.path).join('|'),
            settings: k === 0 && p.settings && Object.keys(p.settings).length > 0 ? JSON.stringify(p.settings) : '',
            tags: k === 0 ? p.tags.map((t) => t.tag.name).join('|') : '',
          });
        });
      }
      return writeFile(q.format, rows);
    },

    /**
     * Takes over the background imports left unfinished by a process that stopped (no heartbeat for
     * `staleMs`; on embedded PGlite, any this process is not running) and runs them to the end,
     * one after another. Run periodically by worker processes (`startImportRecovery`).
     */
    async resumeStale(onError: (err: unknown, importId: string) => void) {
      const at = now();
      const before = options.soleProcess ? new Date(at.getTime() + 1) : new Date(at.getTime() - options.staleMs);
      let resumed = 0;
      for (const stale of await deps.imports.findStale(before, [...running.keys()])) {
        const claimed = await deps.imports.claimStale(stale.id, stale.updatedAt, now());
        if (!claimed) continue; // another process took it
        const rows = (claimed.source ?? []) as FileRow[];
        if (rows.length === 0) {
          const doneAt = now();
          await deps.imports.update(stale.id, { status: 'failed', problems: [{ row: null, column: null, message: 'The import stopped and its rows were not kept; nothing was created' }], updatedAt: doneAt, completedAt: doneAt });
          continue;
        }
        deps.logger?.warn({ importId: stale.id }, 'resuming a background import left unfinished');
        try {
          await startBackground(stale.organizationId, stale.id, rows, claimed.format as ImportFormat);
          resumed++;
        } catch (err) {
          onError(err, stale.id);
        }
      }
      return resumed;
    },

    /** Waits for the background imports of this process (tests, shutdown). */
    async drain() {
      await Promise.all([...background]);
    },
  };
}

export type ImportsService = ReturnType<typeof createImportsService>;
