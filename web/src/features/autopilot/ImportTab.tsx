import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useMemo, useRef, useState } from 'react';
import { useFileDrop } from '../../lib/useFileDrop.js';
import { Link } from 'react-router';
import { api, ApiFailure, unwrap } from '../../api/client.js';
import { useIntegrations } from '../../api/queries.js';
import { useTimeZone } from '../../api/session.js';
import { Button, ErrorNotice, Notice, Spinner } from '../../components/ui.js';
import { formatDateTime, utcTitle } from '../../lib/time.js';
import { ExportPanel } from './ExportPanel.js';
import { ACCEPT, checkFile, COLUMNS, contentTypeOf, exampleCsv, plural, type CheckedFile, type DryRun, type ImportDone, type ImportJob, type ImportProblem } from './ImportModel.js';
import './ImportTab.css';

/** How many rows the table shows before "Show all" (a file can have 10,000). */
const SHOWN_ROWS = 200;

/** Sends a file's text to POST /imports, as a dry run or for real (the same text both times). */
async function sendFile(file: { text: string; contentType: string }, dryRun: boolean) {
  const { data, error, response } = await api.POST('/imports', {
    params: { query: dryRun ? { dryRun: 'true' } : {} },
    body: file.text,
    bodySerializer: (b: string) => b,
    headers: { 'content-type': file.contentType },
  });
  if (error !== undefined || !response.ok) await unwrap(Promise.resolve({ error, response }));
  return { status: response.status, data: data as unknown };
}

/** The file as read when it was checked: the import sends exactly these bytes. */
interface ReadFile {
  name: string;
  size: number;
  text: string;
  contentType: string;
}

/** Bulk import (a dry run row by row, then the import in one go or as a background job) and export (issue 30). */
export function ImportTab() {
  return (
    <div className="import-tab">
      <ImportPanel />
      <ExportPanel />
    </div>
  );
}

function ImportPanel() {
  const timeZone = useTimeZone();
  const queryClient = useQueryClient();
  const integrations = useIntegrations();
  const headingId = useId();
  const [file, setFile] = useState<File | null>(null);
  const [checked, setChecked] = useState<{ file: ReadFile; dry: DryRun } | null>(null);
  const [outcome, setOutcome] = useState<{ kind: 'done'; done: ImportDone; firstDate: string | null } | { kind: 'job'; id: string; firstDate: string | null } | null>(null);

  function choose(next: File) {
    setFile(next);
    setChecked(null);
    setOutcome(null);
    check.reset();
    run.reset();
  }

  const check = useMutation({
    mutationFn: async (f: File): Promise<{ file: ReadFile; dry: DryRun }> => {
      let text: string;
      try {
        text = await f.text();
      } catch {
        throw new Error(`${f.name} could not be read (was it changed or moved since it was chosen?). Choose it again.`);
      }
      const read = { name: f.name, size: f.size, text, contentType: contentTypeOf(f) };
      const r = await sendFile(read, true);
      return { file: read, dry: r.data as DryRun };
    },
    onSuccess: (r) => {
      setChecked(r);
      setOutcome(null);
    },
  });

  const view = useMemo(() => (checked ? checkFile(checked.dry) : null), [checked]);
  const clean = Boolean(checked && view && checked.dry.valid && checked.dry.problems.length === 0 && checked.dry.rows.length > 0);

  const run = useMutation({
    mutationFn: async (read: ReadFile) => sendFile(read, false),
    onSuccess: (r) => {
      const firstDate = view?.firstDate ?? null;
      if (r.status === 202) setOutcome({ kind: 'job', id: (r.data as ImportJob).id, firstDate });
      else {
        setOutcome({ kind: 'done', done: r.data as ImportDone, firstDate });
        void queryClient.invalidateQueries({ queryKey: ['posts'] });
      }
      // the file is spent: importing it again would create its posts twice
      setChecked(null);
      setFile(null);
    },
  });

  const channelsHint = integrations.data?.length ? integrations.data.filter((c) => !c.disabled).map((c) => c.name) : [];

  return (
    <section className="import-section" aria-labelledby={headingId}>
      <h2 id={headingId}>Import posts</h2>
      <p className="hint">
        Plan many posts at once from a CSV, JSON or NDJSON file. The file is checked first, row by row; nothing is created until every row is right, and then all of
        them are created together.
      </p>

      <details className="import-columns">
        <summary>Columns the file can have</summary>
        <table className="table import-columns-table">
          <thead>
            <tr>
              <th scope="col">Column</th>
              <th scope="col">What goes in it</th>
            </tr>
          </thead>
          <tbody>
            {COLUMNS.map((c) => (
              <tr key={c.name}>
                <th scope="row">
                  <code>{c.name}</code>
                  {c.required ? <span className="import-required"> (required)</span> : null}
                </th>
                <td>{c.about}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <p className="hint">A JSON file is an array of objects with these keys; NDJSON is one such object a line. The first line of a CSV file names the columns.</p>
        {channelsHint.length ? <p className="hint">Your channels: {channelsHint.join(', ')}.</p> : null}
      </details>
      <p>
        <ExampleLink names={integrations.data ?? []} timeZone={timeZone} />
      </p>

      <FileDrop file={file} onFile={choose} />

      <div className="import-actions">
        <Button variant={clean ? 'secondary' : 'primary'} disabled={!file || check.isPending || run.isPending} onClick={() => file && check.mutate(file)}>
          {check.isPending ? <Spinner label="Checking" /> : null}
          Check file
        </Button>
        <Button disabled={!clean || run.isPending || check.isPending} onClick={() => checked && run.mutate(checked.file)} aria-describedby={`${headingId}-why`}>
          {run.isPending ? <Spinner label="Importing" /> : null}
          {view && clean ? `Import ${plural(view.posts, 'post')}` : 'Import posts'}
        </Button>
      </div>
      <p className="hint" id={`${headingId}-why`}>
        {!file ? 'Choose a file, then check it.' : !checked ? 'Check the file before importing it.' : clean ? 'Every row is ready.' : 'Fix the problems in the file, choose it again and check it.'}
      </p>

      {check.error ? <ErrorNotice error={check.error} /> : null}
      {run.error ? <ImportRefused error={run.error} /> : null}
      {checked && view ? <CheckResult dry={checked.dry} view={view} fileName={checked.file.name} timeZone={timeZone} /> : null}
      {outcome?.kind === 'done' ? <ImportSucceeded created={outcome.done.created} rows={outcome.done.rows} firstDate={outcome.firstDate} timeZone={timeZone} /> : null}
      {outcome?.kind === 'job' ? <ImportProgress id={outcome.id} firstDate={outcome.firstDate} timeZone={timeZone} /> : null}
    </section>
  );
}

/** "Download an example CSV": built in the page from the documented columns and the person's channels. */
function ExampleLink({ names, timeZone }: { names: { id: string; name: string; disabled: boolean }[]; timeZone: string }) {
  const csv = useMemo(() => exampleCsv(names, timeZone), [names, timeZone]);
  const [href, setHref] = useState<string | null>(null);
  useEffect(() => {
    const url = URL.createObjectURL(new Blob([csv], { type: 'text/csv;charset=utf-8' }));
    setHref(url);
    return () => URL.revokeObjectURL(url);
  }, [csv]);
  if (!href) return null;
  return (
    <a className="import-example" href={href} download="tidings-import-example.csv">
      Download an example CSV
    </a>
  );
}

function FileDrop({ file, onFile }: { file: File | null; onFile: (f: File) => void }) {
  const input = useRef<HTMLInputElement>(null);
  const { over, handlers } = useFileDrop((files) => {
    const f = files[0];
    if (f) onFile(f);
  });
  const inputId = useId();

  return (
    <div
      className={`import-drop${over ? ' over' : ''}`}
      {...handlers}
    >
      <label htmlFor={inputId} className="import-drop-label">
        File to import
      </label>
      <p className="hint">{over ? 'Drop the file here' : 'CSV, JSON or NDJSON, up to 5 MB: choose it or drag it here.'}</p>
      <Button variant="secondary" onClick={() => input.current?.click()} aria-describedby={file ? `${inputId}-chosen` : undefined}>
        {file ? 'Choose another file…' : 'Choose a file…'}
      </Button>
      {/* the button opens it; the label names it (and a test can give it files) */}
      <input
        ref={input}
        id={inputId}
        type="file"
        accept={ACCEPT}
        className="visually-hidden"
        tabIndex={-1}
        onChange={(e) => {
          const f = e.target.files?.[0];
          if (f) onFile(f);
          // choosing the same (edited) file again is a change too
          e.target.value = '';
        }}
      />
      {file ? (
        <p className="import-chosen" id={`${inputId}-chosen`} aria-live="polite">
          Chosen: <strong>{file.name}</strong> <span className="muted">({formatSize(file.size)})</span>
        </p>
      ) : null}
    </div>
  );
}

function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** Which table cell a problem's column belongs to (the others are only listed). */
function cellOf(column: string | null): 'channel' | 'date' | 'type' | 'text' | null {
  if (column === 'channel') return 'channel';
  if (column === 'date' || column === 'timezone') return 'date';
  if (column === 'type') return 'type';
  if (column === 'text' || column === 'media') return 'text';
  return null;
}

function ProblemList({ problems }: { problems: ImportProblem[] }) {
  return (
    <ul className="import-problems">
      {problems.map((p, i) => (
        <li key={i}>
          {p.column ? <strong className="import-problem-column">{p.column}</strong> : null}
          {p.column ? ': ' : null}
          {p.message}
        </li>
      ))}
    </ul>
  );
}

function CheckResult({ dry, view, fileName, timeZone }: { dry: DryRun; view: CheckedFile; fileName: string; timeZone: string }) {
  const [onlyBad, setOnlyBad] = useState(false);
  const [all, setAll] = useState(false);
  const total = dry.rows.length;
  const ready = total - view.rows.filter((r) => r.problems.length > 0).length;
  const problems = dry.problems.length;
  const listed = onlyBad ? view.rows.filter((r) => r.problems.length > 0) : view.rows;
  const shown = all ? listed : listed.slice(0, SHOWN_ROWS);
  const captionId = useId();

  return (
    <div className="import-result">
      {problems === 0 && total > 0 ? (
        <Notice kind="ok">
          {fileName}: {plural(total, 'row')} ready — {plural(view.posts, 'post')} in {plural(view.groups, 'group')}.
        </Notice>
      ) : total === 0 && problems === 0 ? (
        <Notice kind="bad">{fileName} has no rows to import.</Notice>
      ) : (
        <Notice kind="bad">
          {fileName}: {plural(ready, 'row')} ready, {plural(view.rowsWithProblems, 'row')} with problems
          {view.fileProblems.some((p) => p.row === null) ? ' and problems with the whole file' : ''}. Nothing can be imported until every problem is fixed.
        </Notice>
      )}
      {view.fileProblems.length ? (
        <div className="import-file-problems">
          <p className="import-file-problems-title">Problems with the file</p>
          <ProblemRows problems={view.fileProblems} />
        </div>
      ) : null}
      {total > 0 ? (
        <>
          {view.rowsWithProblems > 0 ? (
            <label className="import-only-bad">
              <input type="checkbox" checked={onlyBad} onChange={(e) => setOnlyBad(e.target.checked)} /> Show only rows with problems
            </label>
          ) : null}
          <div className="import-table-wrap">
            <table className="table import-table" aria-labelledby={captionId}>
              <caption id={captionId} className="visually-hidden">
                Rows of {fileName}, as they would be imported
              </caption>
              <thead>
                <tr>
                  <th scope="col">Row</th>
                  <th scope="col">Channel</th>
                  <th scope="col">Date ({timeZone})</th>
                  <th scope="col">Type</th>
                  <th scope="col">Text</th>
                  <th scope="col">Problems</th>
                </tr>
              </thead>
              <tbody>
                {shown.map(({ row, problems: ps }) => {
                  const bad = new Set(ps.map((p) => cellOf(p.column)));
                  const cell = (name: 'channel' | 'date' | 'type' | 'text') => (bad.has(name) ? 'import-cell-bad' : undefined);
                  return (
                    <tr key={row.row} className={ps.length ? 'import-row-bad' : undefined} data-row={row.row}>
                      <th scope="row">{row.row}</th>
                      <td className={cell('channel')} data-label="Channel">
                        {row.channel ? row.channel.name : <span className="muted">—</span>}
                      </td>
                      <td className={cell('date')} data-label="Date">
                        {row.date ? <time dateTime={row.date} title={utcTitle(row.date)}>{formatDateTime(row.date, timeZone)}</time> : <span className="muted">—</span>}
                      </td>
                      <td className={cell('type')} data-label="Type">
                        {row.type === 'draft' ? 'Draft' : 'Scheduled'}
                        {row.position > 0 ? <span className="muted"> · reply {row.position}</span> : null}
                      </td>
                      <td className={`import-text${cell('text') ? ` ${cell('text')}` : ''}`} data-label="Text">
                        {row.text || <span className="muted">(no text)</span>}
                      </td>
                      <td data-label="Problems">{ps.length ? <ProblemList problems={ps} /> : <span className="import-ok">Ready</span>}</td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
          {listed.length > shown.length ? (
            <p>
              Showing {plural(shown.length, 'row')} of {listed.length.toLocaleString()}.{' '}
              <Button variant="secondary" onClick={() => setAll(true)}>
                Show all {plural(listed.length, 'row')}
              </Button>
            </p>
          ) : null}
        </>
      ) : null}
    </div>
  );
}

/** A 400 on the real import (the file changed, a channel went away since the check): nothing was created. */
function ImportRefused({ error }: { error: unknown }) {
  if (error instanceof ApiFailure && error.body.fields?.some((f) => f.path.startsWith('rows.'))) {
    return (
      <Notice kind="bad">
        Nothing was imported: {error.body.message}
        <ul className="import-problems">
          {error.body.fields.map((f) => {
            const [, row, column] = f.path.split('.');
            return (
              <li key={f.path}>
                Row {row}
                {column ? (
                  <>
                    , <strong className="import-problem-column">{column}</strong>
                  </>
                ) : null}
                : {f.message}
              </li>
            );
          })}
        </ul>
      </Notice>
    );
  }
  return <ErrorNotice error={error} />;
}

function CalendarLink({ firstDate, timeZone }: { firstDate: string | null; timeZone: string }) {
  if (!firstDate) return null;
  const day = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date(firstDate));
  return (
    <Link className="import-calendar-link" to={`/calendar?date=${day}`}>
      See them in the calendar (from {formatDateTime(firstDate, timeZone, { dateStyle: 'medium' })})
    </Link>
  );
}

function ImportSucceeded({ created, rows, firstDate, timeZone }: { created: { groups: number; posts: number }; rows: number; firstDate: string | null; timeZone: string }) {
  return (
    <Notice kind="ok">
      <p className="import-done-title">
        Imported {plural(created.posts, 'post')} in {plural(created.groups, 'group')} ({plural(rows, 'row')}).
      </p>
      <CalendarLink firstDate={firstDate} timeZone={timeZone} />
    </Notice>
  );
}

/** A file of more than 2,000 rows is imported in the background: its progress, polled until it ends. */
function ImportProgress({ id, firstDate, timeZone }: { id: string; firstDate: string | null; timeZone: string }) {
  const queryClient = useQueryClient();
  const job = useQuery({
    queryKey: ['import', id],
    queryFn: () => unwrap(api.GET('/imports/{id}', { params: { path: { id } } })),
    refetchInterval: (q) => (q.state.data && (q.state.data.status === 'completed' || q.state.data.status === 'failed') ? false : 1000),
  });
  const status = job.data?.status;
  useEffect(() => {
    if (status === 'completed') void queryClient.invalidateQueries({ queryKey: ['posts'] });
  }, [status, queryClient]);

  if (job.error && !job.data) return <ErrorNotice error={job.error} />;
  const data = job.data;
  if (data?.status === 'completed') return <ImportSucceeded created={data.created} rows={data.progress.total} firstDate={firstDate} timeZone={timeZone} />;
  if (data?.status === 'failed') {
    return (
      <Notice kind="bad">
        <p className="import-done-title">The import failed; nothing was created.</p>
        <ProblemRows problems={data.problems} />
      </Notice>
    );
  }
  const done = data?.progress.done ?? 0;
  const total = data?.progress.total ?? 0;
  return (
    <div className="import-progress card">
      <p className="import-done-title">Importing in the background… you can leave this page; the posts appear when every row is done.</p>
      <progress aria-label="Import progress" max={total || 1} value={done} />
      <p role="status" aria-live="polite">
        {data ? `${done.toLocaleString()} of ${plural(total, 'row')} done` : 'Starting…'}
      </p>
    </div>
  );
}

function ProblemRows({ problems }: { problems: ImportProblem[] }) {
  if (!problems.length) return null;
  return (
    <ul className="import-problems">
      {problems.map((p, i) => (
        <li key={i}>
          {p.row !== null ? `Row ${p.row}` : 'The file'}
          {p.column ? (
            <>
              , <strong className="import-problem-column">{p.column}</strong>
            </>
          ) : null}
          : {p.message}
        </li>
      ))}
    </ul>
  );
}
