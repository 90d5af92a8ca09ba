import { useEffect, useState } from 'react';
import { Link } from 'react-router';
import { api, ApiFailure, upload } from '../api/client';
import { toFailure } from '../api/hooks';
import { formatCount } from '../ui/format';
import { ErrorNotice, InfoNotice } from '../ui/Notice';
import { PageHeader } from '../ui/PageHeader';

/** The fields a column can fill (the server's subscriber-csv.ts), in the order people look for them. */
const FIELDS: [string, string][] = [
  ['email', 'Email'],
  ['first_name', 'First name'],
  ['last_name', 'Last name'],
  ['phone', 'Phone'],
  ['address1', 'Address line 1'],
  ['address2', 'Address line 2'],
  ['city', 'City'],
  ['state', 'State or region'],
  ['zip', 'Postal code'],
  ['country_code', 'Country code'],
  ['birthdate', 'Birthdate'],
  ['gender', 'Gender'],
  ['income_level', 'Income level'],
  ['membership_status', 'Membership status'],
  ['status', 'Status'],
  ['timezone', 'Time zone'],
  ['tags', 'Tags'],
  ['interests', 'Interests'],
  ['social_media', 'Social media (JSON)'],
  ['id', 'Id (ignored)'],
  ['created_at', 'Created at (ignored)'],
  ['updated_at', 'Updated at (ignored)'],
];
const CUSTOM = 'custom_fields.';
const SKIP = '';

interface Column {
  header: string;
  field: string | null;
}

interface ImportProgress {
  id: string;
  status: 'queued' | 'running' | 'done' | 'failed';
  rows_total: number | null;
  rows_processed: number;
  created: number;
  updated: number;
  unchanged: number;
  skipped_erased: number;
  failed: number;
  errors: { row: number; field: string; message: string }[];
  failure_reason: string | null;
}

/**
 * Subscribers from a CSV file: choose the file, check where each column goes (the server's
 * guess, changeable), then watch the import run and read what it refused.
 */
export function ImportPage() {
  const [file, setFile] = useState<File>();
  const [columns, setColumns] = useState<Column[]>();
  const [mode, setMode] = useState<'upsert' | 'create'>('upsert');
  const [failure, setFailure] = useState<ApiFailure>();
  const [busy, setBusy] = useState(false);
  const [importId, setImportId] = useState<string>();

  async function choose(chosen: File | undefined) {
    setFailure(undefined);
    setColumns(undefined);
    setFile(chosen);
    if (!chosen) return;
    try {
      const headers = readHeader(await chosen.slice(0, 64 * 1024).text());
      if (headers.length === 0) throw new ApiFailure(0, 'This file has no header row.');
      const guess = await api<{ columns: Column[] }>('/imports/columns', {
        method: 'POST',
        body: { headers },
      });
      setColumns(guess.columns);
    } catch (error) {
      setFailure(toFailure(error));
    }
  }

  async function start() {
    if (!file || !columns) return;
    setBusy(true);
    setFailure(undefined);
    try {
      const form = new FormData();
      form.append('mode', mode);
      form.append(
        'columns',
        JSON.stringify(Object.fromEntries(columns.map(({ header, field }) => [header, field]))),
      );
      form.append('file', file);
      const accepted = await upload<{ id: string }>('/imports', form);
      setImportId(accepted.id);
    } catch (error) {
      setFailure(toFailure(error));
    } finally {
      setBusy(false);
    }
  }

  if (importId) return <ImportRun id={importId} />;

  const hasEmail = columns?.some((column) => column.field === 'email');
  return (
    <>
      <PageHeader
        title="Import subscribers"
        description="From a CSV file with a header row, up to 100 MB."
      />
      <section className="section narrow-form">
        <div className="field">
          <label htmlFor="import-file">CSV file</label>
          <input
            id="import-file"
            type="file"
            accept=".csv,text/csv"
            onChange={(event) => void choose(event.target.files?.[0])}
          />
          <p className="field-hint">
            Comma, semicolon or tab separated. Columns Herald does not know become custom fields.
          </p>
        </div>
      </section>
      {failure && <ErrorNotice>{failure.message}</ErrorNotice>}
      {columns && (
        <section className="section" aria-labelledby="mapping-title">
          <h2 id="mapping-title" className="subsection-title">
            Where each column goes
          </h2>
          <div className="table-wrap">
            <table className="table table-compact">
              <caption className="visually-hidden">Column mapping</caption>
              <thead>
                <tr>
                  <th scope="col">Column in the file</th>
                  <th scope="col">Imported as</th>
                </tr>
              </thead>
              <tbody>
                {columns.map((column, index) => (
                  <tr key={column.header}>
                    <td className="strong">{column.header || '(no name)'}</td>
                    <td>
                      <select
                        aria-label={`Imported as, for column ${column.header}`}
                        value={column.field ?? SKIP}
                        onChange={(event) =>
                          setColumns(
                            columns.map((other, at) =>
                              at === index
                                ? { ...other, field: event.target.value || null }
                                : other,
                            ),
                          )
                        }
                      >
                        <option value={SKIP}>Skip this column</option>
                        {FIELDS.map(([value, label]) => (
                          <option key={value} value={value}>
                            {label}
                          </option>
                        ))}
                        <option value={`${CUSTOM}${customKey(column)}`}>
                          Custom field “{customKey(column)}”
                        </option>
                      </select>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <div className="field">
            <label htmlFor="import-mode">Subscribers who already exist</label>
            <select
              id="import-mode"
              value={mode}
              onChange={(event) => setMode(event.target.value as 'upsert' | 'create')}
            >
              <option value="upsert">Update them with the file’s values</option>
              <option value="create">Leave them as they are</option>
            </select>
          </div>
          {!hasEmail && <ErrorNotice>Choose the column that holds the email address.</ErrorNotice>}
          <div className="form-actions">
            <button
              type="button"
              className="button button-primary"
              disabled={busy || !hasEmail}
              onClick={() => void start()}
            >
              {busy ? 'Uploading…' : 'Import'}
            </button>
            <Link to="/subscribers" className="button">
              Cancel
            </Link>
          </div>
        </section>
      )}
    </>
  );
}

/** A column's custom field name: the one it maps to, else its header. */
function customKey(column: Column): string {
  return column.field?.startsWith(CUSTOM) ? column.field.slice(CUSTOM.length) : column.header;
}

/** The live progress of an import, then its summary and row errors. */
function ImportRun({ id }: { id: string }) {
  const [progress, setProgress] = useState<ImportProgress>();
  const [failure, setFailure] = useState<ApiFailure>();
  const finished = progress?.status === 'done' || progress?.status === 'failed';

  useEffect(() => {
    if (finished) return;
    let stopped = false;
    const poll = async () => {
      try {
        const next = await api<ImportProgress>(`/imports/${id}`);
        if (!stopped) setProgress(next);
      } catch (error) {
        if (!stopped) setFailure(toFailure(error));
      }
    };
    void poll();
    const timer = setInterval(() => void poll(), 700);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [id, finished]);

  const total = progress?.rows_total ?? null;
  const percent =
    total === null ? 0 : total === 0 ? 100 : Math.floor((progress!.rows_processed / total) * 100);
  return (
    <>
      <PageHeader
        title="Import subscribers"
        description={finished ? 'The import is finished.' : 'Importing: you can leave this page.'}
      />
      {failure && <ErrorNotice>{failure.message}</ErrorNotice>}
      <section className="section" aria-labelledby="progress-title">
        <h2 id="progress-title" className="subsection-title">
          {progress?.status === 'failed'
            ? 'The import failed'
            : finished
              ? 'Done'
              : total === null
                ? 'Counting rows…'
                : `Row ${formatCount(progress!.rows_processed)} of ${formatCount(total)}`}
        </h2>
        <div
          className="progress"
          role="progressbar"
          aria-label="Import progress"
          aria-valuemin={0}
          aria-valuemax={100}
          aria-valuenow={percent}
          aria-valuetext={`${percent}%`}
        >
          <div className="progress-fill" style={{ width: `${percent}%` }} />
        </div>
        {progress?.failure_reason && <ErrorNotice>{progress.failure_reason}</ErrorNotice>}
        {progress && (
          <dl className="tiles" aria-label="Import summary">
            {(
              [
                ['Created', progress.created],
                ['Updated', progress.updated],
                ['Unchanged', progress.unchanged],
                ['Skipped (erased)', progress.skipped_erased],
                ['Failed', progress.failed],
              ] as const
            ).map(([label, value]) => (
              <div key={label} className="tile">
                <dt>{label}</dt>
                <dd>{formatCount(value)}</dd>
              </div>
            ))}
          </dl>
        )}
      </section>
      {progress && progress.errors.length > 0 && (
        <section className="section" aria-labelledby="errors-title">
          <h2 id="errors-title" className="subsection-title">
            Rows that were not imported
          </h2>
          <p>
            <a
              className="button button-small"
              href={`/dashboard/api/imports/${id}/errors`}
              download={`import-${id}-errors.csv`}
            >
              Download all row errors (CSV)
            </a>
          </p>
          <div className="table-wrap">
            <table className="table table-compact">
              <caption className="visually-hidden">Row errors</caption>
              <thead>
                <tr>
                  <th scope="col">Row</th>
                  <th scope="col">Field</th>
                  <th scope="col">Problem</th>
                </tr>
              </thead>
              <tbody>
                {progress.errors.slice(0, 100).map((error) => (
                  <tr key={`${error.row}:${error.field}`}>
                    <td>{error.row}</td>
                    <td className="mono">{error.field}</td>
                    <td>{error.message}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </section>
      )}
      {finished && (
        <p>
          <Link to="/subscribers" className="button button-primary">
            See subscribers
          </Link>
        </p>
      )}
    </>
  );
}

/**
 * "Export CSV" on the subscribers page: starts an export, follows it, then offers the file.
 */
export function ExportButton() {
  const [exportId, setExportId] = useState<string>();
  const [state, setState] = useState<{ status: string; rows: number }>();
  const [failure, setFailure] = useState<ApiFailure>();

  useEffect(() => {
    if (!exportId || state?.status === 'done' || state?.status === 'failed') return;
    const timer = setInterval(() => {
      api<{ status: string; rows: number }>(`/exports/${exportId}`).then(setState, (error) =>
        setFailure(toFailure(error)),
      );
    }, 700);
    return () => clearInterval(timer);
  }, [exportId, state?.status]);

  async function start() {
    setFailure(undefined);
    setState(undefined);
    try {
      const accepted = await api<{ id: string }>('/exports', { method: 'POST', body: {} });
      setExportId(accepted.id);
    } catch (error) {
      setFailure(toFailure(error));
    }
  }

  if (failure) return <ErrorNotice>{failure.message}</ErrorNotice>;
  if (exportId && state?.status === 'done') {
    return (
      <a
        className="button"
        href={`/dashboard/api/exports/${exportId}/download`}
        download={`subscribers-${exportId}.csv`}
      >
        Download CSV ({formatCount(state.rows)})
      </a>
    );
  }
  if (exportId) {
    return state?.status === 'failed' ? (
      <ErrorNotice>The export failed; try again.</ErrorNotice>
    ) : (
      <InfoNotice>Exporting… {state ? formatCount(state.rows) : ''}</InfoNotice>
    );
  }
  return (
    <button type="button" className="button" onClick={() => void start()}>
      Export CSV
    </button>
  );
}

/** The header of a CSV from its first bytes: quoted cells, and the delimiter the server would pick. */
export function readHeader(text: string): string[] {
  const body = text.replace(/^\uFEFF/, '');
  const firstLine = body.split(/\r?\n/, 1)[0] ?? '';
  const delimiter = firstLine.includes(',')
    ? ','
    : firstLine.includes(';')
      ? ';'
      : firstLine.includes('\t')
        ? '\t'
        : ',';
  const cells: string[] = [];
  let cell = '';
  let quoted = false;
  for (let index = 0; index < body.length; index++) {
    const char = body[index];
    if (quoted) {
      if (char === '"' && body[index + 1] === '"') {
        cell += '"';
        index++;
      } else if (char === '"') quoted = false;
      else cell += char;
    } else if (char === '"' && cell === '') quoted = true;
    else if (char === delimiter) {
      cells.push(cell);
      cell = '';
    } else if (char === '\n' || char === '\r') break;
    else cell += char;
  }
  cells.push(cell);
  return cells.length === 1 && cells[0] === '' ? [] : cells;
}
