import { useMutation } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import { api, unwrap } from '../../api/client.js';
import { useTimeZone } from '../../api/session.js';
import { Button, ErrorNotice, Field, Notice, Spinner, TextInput } from '../../components/ui.js';
import { dayIn, exportWindow } from './ImportModel.js';

type Format = 'csv' | 'json';

/** Saves a blob as a file: a temporary link to it, clicked. */
function saveBlob(blob: Blob, name: string) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.style.display = 'none';
  document.body.appendChild(a);
  a.click();
  a.remove();
  // the download has started from the URL; free it once the click is handled
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/**
 * Export (GET /exports/posts): the posts of a window, as CSV or JSON in the format the import takes
 * back. Fetched with the session (not a plain link), then saved as a file.
 */
export function ExportPanel() {
  const timeZone = useTimeZone();
  const headingId = useId();
  const [from, setFrom] = useState(() => dayIn(timeZone));
  const [to, setTo] = useState(() => dayIn(timeZone, 30));
  const [format, setFormat] = useState<Format>('csv');
  const [touched, setTouched] = useState(false);

  const fromError = !from ? 'Choose the first day.' : undefined;
  const toError = !to ? 'Choose the last day.' : from && to < from ? 'The last day is before the first.' : undefined;

  const download = useMutation({
    mutationFn: async (v: { from: string; to: string; format: Format }) => {
      const window = exportWindow(v.from, v.to, timeZone);
      const blob = await unwrap(api.GET('/exports/posts', { params: { query: { ...window, format: v.format } }, parseAs: 'blob' }));
      const name = `tidings-posts-${v.from}-to-${v.to}.${v.format}`;
      saveBlob(blob, name);
      return { name, size: blob.size };
    },
  });

  function submit(e: FormEvent) {
    e.preventDefault();
    setTouched(true);
    if (fromError || toError) return;
    download.mutate({ from, to, format });
  }

  return (
    <section className="import-section export-section" aria-labelledby={headingId}>
      <h2 id={headingId}>Export posts</h2>
      <p className="hint">The posts planned in a window (days in {timeZone}), in the same columns the import takes: edit them in a spreadsheet and import them back, or keep a copy.</p>
      <form className="export-form" onSubmit={submit} noValidate>
        <div className="export-dates">
          <Field label="First day" error={touched ? fromError : undefined}>
            {(p) => <TextInput {...p} type="date" value={from} onChange={(e) => setFrom(e.target.value)} required />}
          </Field>
          <Field label="Last day" error={touched ? toError : undefined}>
            {(p) => <TextInput {...p} type="date" value={to} min={from || undefined} onChange={(e) => setTo(e.target.value)} required />}
          </Field>
        </div>
        <fieldset className="export-format">
          <legend>Format</legend>
          <label>
            <input type="radio" name="export-format" value="csv" checked={format === 'csv'} onChange={() => setFormat('csv')} /> CSV (spreadsheets)
          </label>
          <label>
            <input type="radio" name="export-format" value="json" checked={format === 'json'} onChange={() => setFormat('json')} /> JSON
          </label>
        </fieldset>
        <Button type="submit" disabled={download.isPending}>
          {download.isPending ? <Spinner label="Preparing the file" /> : null}
          Download
        </Button>
      </form>
      {download.error ? <ErrorNotice error={download.error} /> : null}
      {download.data && !download.isPending ? <Notice kind="ok">Saved {download.data.name}.</Notice> : null}
    </section>
  );
}
