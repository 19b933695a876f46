import { Readable } from 'node:stream';
import { parse } from 'csv-parse';
import { stringify } from 'csv-stringify/sync';

/**
 * The import/export file formats (issue 30 part 4). One row = one post item on one channel; every
 * value is a string as it stands in a CSV cell (JSON rows may hold numbers, objects and arrays,
 * which are read into the same strings: `settings` an object, `media` / `tags` arrays).
 */
export const COLUMNS = ['group', 'channel', 'date', 'timezone', 'type', 'position', 'delay', 'text', 'media', 'settings', 'tags', 'template', 'values'] as const;
export type Column = (typeof COLUMNS)[number];
/** what an export writes: a post's own columns (`template` and `values` only make posts on import) */
const EXPORTED = COLUMNS.filter((c) => c !== 'template' && c !== 'values');
export type FileRow = Partial<Record<Column, string>>;
export type ImportFormat = 'csv' | 'json';

export class FileFormatError extends Error {}

function cell(v: unknown, column: string): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v) && (column === 'media' || column === 'tags')) return v.map((x) => String(x)).join('|');
  return JSON.stringify(v);
}

function toRow(o: Record<string, unknown>): FileRow {
  const row: FileRow = {};
  for (const [k, v] of Object.entries(o)) {
    const key = k.trim().toLowerCase();
    if ((COLUMNS as readonly string[]).includes(key)) row[key as Column] = cell(v, key);
  }
  return row;
}

/** CSV with a header line (column names as in COLUMNS, any case), parsed as a stream. */
export async function parseCsv(text: string): Promise<FileRow[]> {
  const rows: FileRow[] = [];
  const parser = Readable.from([text]).pipe(
    parse({ columns: (header: string[]) => header.map((h) => h.trim().toLowerCase()), bom: true, skip_empty_lines: true, relax_column_count: false, trim: false }),
  );
  try {
    for await (const record of parser as AsyncIterable<Record<string, string>>) rows.push(toRow(record));
  } catch (e) {
    throw new FileFormatError(`The CSV could not be read: ${(e as Error).message}`);
  }
  return rows;
}

/** A JSON array of row objects, or NDJSON (one object a line). */
export function parseJson(text: string): FileRow[] {
  const trimmed = text.trim();
  if (trimmed === '') return [];
  let values: unknown[];
  if (trimmed.startsWith('[')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(trimmed);
    } catch (e) {
      throw new FileFormatError(`The JSON could not be read: ${(e as Error).message}`);
    }
    return jsonRows(parsed);
  } else {
    values = trimmed.split(/\r?\n/).filter((l) => l.trim() !== '').map((line, i) => {
      try {
        return JSON.parse(line) as unknown;
      } catch (e) {
        throw new FileFormatError(`Line ${i + 1} is not JSON: ${(e as Error).message}`);
      }
    });
  }
  return jsonRows(values);
}

/** Rows of a JSON value already parsed (an `application/json` body): an array of objects. */
export function jsonRows(values: unknown): FileRow[] {
  if (!Array.isArray(values)) throw new FileFormatError('Send a JSON array of row objects (or NDJSON: one object a line)');
  return values.map((v: unknown, i) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new FileFormatError(`Row ${i + 1} is not a JSON object`);
    return toRow(v as Record<string, unknown>);
  });
}

export function parseFile(format: ImportFormat, text: string): Promise<FileRow[]> {
  return format === 'csv' ? parseCsv(text) : Promise.resolve(parseJson(text));
}

/** Rows written back in the import's format (CSV with a header of every column, or a JSON array). */
export function writeFile(format: ImportFormat, rows: FileRow[]): string {
  if (format === 'json') {
    return JSON.stringify(
      rows.map((r) => {
        const o: Record<string, unknown> = {};
        for (const c of EXPORTED) {
          const v = r[c];
          if (v === undefined || v === '') continue;
          o[c] = c === 'settings' ? (JSON.parse(v) as unknown) : c === 'position' || c === 'delay' ? Number(v) : c === 'media' || c === 'tags' ? v.split('|') : v;
        }
        return o;
      }),
    );
  }
  return stringify(rows.map((r) => EXPORTED.map((c) => r[c] ?? '')), { header: true, columns: [...EXPORTED] });
}
