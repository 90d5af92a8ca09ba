import { FormEvent, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { api, ApiFailure, query } from '../api/client';
import { toFailure, useApi, useDebounced, useLiveResult } from '../api/hooks';
import type { Page, Rendered, Subscriber, Template } from '../api/types';
import { ConfirmDialog } from '../ui/ConfirmDialog';
import { TextAreaField, TextField } from '../ui/Field';
import { formatDateTime } from '../ui/format';
import { offsetOf } from '../ui/text-position';
import { EmptyState, ErrorNotice, InfoNotice, Loading } from '../ui/Notice';
import { FormFailure } from '../ui/FormFailure';
import { PageHeader } from '../ui/PageHeader';
import { PagedTable } from '../ui/DataTable';
import { useCursorPager } from '../ui/Pager';

export function TemplatesPage() {
  const pager = useCursorPager('templates');
  const page = useApi<Page<Template>>(`/templates${query({ cursor: pager.cursor })}`);
  return (
    <>
      <PageHeader
        title="Templates"
        description="Reusable email content with merge fields such as {{first_name}}."
        actions={
          <Link className="button button-primary" to="/templates/new">
            New template
          </Link>
        }
      />
      <PagedTable
        list={page}
        pager={pager}
        empty={
          <EmptyState title="No templates yet">
            <p>Write one once, then use it in any number of campaigns.</p>
          </EmptyState>
        }
        caption="Templates"
        columns={['Name', 'Subject', 'Bodies', 'Updated']}
      >
        {(template) => (
          <tr key={template.id}>
            <td>
              <Link className="strong" to={`/templates/${template.id}`}>
                {template.name}
              </Link>
            </td>
            <td>{template.subject}</td>
            <td>
              {[template.html && 'HTML', template.text && 'Text'].filter(Boolean).join(' + ')}
            </td>
            <td>{formatDateTime(template.updated_at)}</td>
          </tr>
        )}
      </PagedTable>
    </>
  );
}

const STARTER: Omit<Template, 'id' | 'created_at' | 'updated_at'> = {
  name: '',
  subject: 'Hello {{first_name}}',
  html: '<h1>Hello {{first_name}}!</h1>\n<p>Thanks for being with us in {{city}}.</p>',
  text: 'Hello {{first_name}}!\n\nThanks for being with us in {{city}}.',
};

const SAMPLE_DATA = {
  email: 'ada@example.com',
  first_name: 'Ada',
  last_name: 'Lovelace',
  city: 'London',
  country_code: 'GB',
  tags: ['vip'],
};

export function TemplateEditorPage() {
  const { id = 'new' } = useParams();
  const isNew = id === 'new';
  const loaded = useApi<Template>(isNew ? null : `/templates/${encodeURIComponent(id)}`);
  if (!isNew && loaded.error) return <ErrorNotice>{loaded.error.message}</ErrorNotice>;
  if (!isNew && !loaded.data) return <Loading />;
  // Keyed by id, so opening another template starts a fresh editor.
  return <TemplateEditor key={id} template={isNew ? undefined : loaded.data} />;
}

const TEMPLATE_FIELDS = ['name', 'subject', 'html', 'text'];

/**
 * After a failed save, the cursor goes where the first template field that does not compile
 * goes wrong (the server gives its line and column), so the author lands on the mistake.
 */
function showFirstTemplateError(form: HTMLFormElement, failure: ApiFailure) {
  const first = failure.details.find((detail) => detail.line !== undefined);
  const control = first && form.elements.namedItem(first.field);
  if (!first || !(control instanceof HTMLTextAreaElement || control instanceof HTMLInputElement)) {
    return;
  }
  const at = offsetOf(control.value, first.line ?? 1, first.column ?? 1);
  control.focus();
  control.setSelectionRange(at, at);
}

function TemplateEditor({ template }: { template?: Template }) {
  const navigate = useNavigate();
  const [draft, setDraft] = useState({
    name: template?.name ?? STARTER.name,
    subject: template?.subject ?? STARTER.subject,
    html: template ? (template.html ?? '') : (STARTER.html ?? ''),
    text: template ? (template.text ?? '') : (STARTER.text ?? ''),
  });
  const [sample, setSample] = useState(JSON.stringify(SAMPLE_DATA, null, 2));
  const [failure, setFailure] = useState<ApiFailure>();
  const [saved, setSaved] = useState(false);
  const [busy, setBusy] = useState(false);
  const [deleting, setDeleting] = useState(false);

  const change = (field: keyof typeof draft) => (value: string) => {
    setDraft((current) => ({ ...current, [field]: value }));
    setSaved(false);
  };

  const save = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    setBusy(true);
    setFailure(undefined);
    const body = { ...draft, html: draft.html || null, text: draft.text || null };
    try {
      if (template) {
        await api(`/templates/${template.id}`, { method: 'PATCH', body });
        setSaved(true);
      } else {
        const created = await api<Template>('/templates', { method: 'POST', body });
        void navigate(`/templates/${created.id}`, { replace: true });
      }
    } catch (error) {
      const failed = toFailure(error);
      setFailure(failed);
      showFirstTemplateError(form, failed);
    } finally {
      setBusy(false);
    }
  };

  const error = (field: string) => failure?.fieldMessage(field);
  return (
    <>
      <p className="breadcrumb">
        <Link to="/templates">Templates</Link>
      </p>
      <PageHeader
        title={template ? template.name : 'New template'}
        description="Merge fields: {{first_name}}, {{email}}, any subscriber field or custom field. Preview updates as you type."
        actions={
          template && (
            <button
              type="button"
              className="button button-danger-ghost"
              onClick={() => setDeleting(true)}
            >
              Delete
            </button>
          )
        }
      />
      <div className="editor">
        <form className="editor-form" onSubmit={(event) => void save(event)} noValidate>
          <TextField
            label="Name"
            value={draft.name}
            onChange={(event) => change('name')(event.target.value)}
            required
            error={error('name')}
          />
          <TextField
            label="Subject"
            name="subject"
            value={draft.subject}
            onChange={(event) => change('subject')(event.target.value)}
            required
            error={error('subject')}
          />
          <TextAreaField
            label="HTML body"
            name="html"
            className="mono"
            rows={10}
            value={draft.html}
            onChange={(event) => change('html')(event.target.value)}
            spellCheck={false}
            error={error('html')}
          />
          <TextAreaField
            label="Plain-text body"
            name="text"
            className="mono"
            rows={6}
            value={draft.text}
            onChange={(event) => change('text')(event.target.value)}
            error={error('text')}
          />
          <TextAreaField
            label="Sample data for the preview"
            className="mono"
            rows={9}
            value={sample}
            onChange={(event) => setSample(event.target.value)}
            spellCheck={false}
            hint="JSON: the merge fields the preview uses. Not saved."
          />
          <FormFailure failure={failure} fields={TEMPLATE_FIELDS} />
          {saved && <InfoNotice>Saved.</InfoNotice>}
          <div className="form-actions">
            <button type="submit" className="button button-primary" disabled={busy}>
              {busy ? 'Saving…' : template ? 'Save template' : 'Create template'}
            </button>
          </div>
        </form>
        <Preview draft={draft} sample={sample} />
      </div>
      {template && (
        <ConfirmDialog
          open={deleting}
          title={`Delete “${template.name}”?`}
          confirmLabel="Delete template"
          danger
          onClose={() => setDeleting(false)}
          onConfirm={async () => {
            await api(`/templates/${template.id}`, { method: 'DELETE' });
            void navigate('/templates');
          }}
        >
          <p>
            Campaigns already sent keep their content. A draft campaign using it blocks deletion.
          </p>
        </ConfirmDialog>
      )}
    </>
  );
}

/** Renders the draft on the server, with the campaigns' own renderer, shortly after typing stops. */
function Preview({
  draft,
  sample,
}: {
  draft: { subject: string; html: string; text: string };
  sample: string;
}) {
  const settled = useDebounced({ ...draft, sample }, 300);
  const [tab, setTab] = useState<'html' | 'text'>('html');
  let data: unknown;
  let sampleError: string | undefined;
  try {
    data = JSON.parse(settled.sample || '{}');
  } catch {
    sampleError = 'The sample data is not valid JSON.';
  }
  // Optionally, one of the account's real subscribers instead of the sample data.
  const [asEmail, setAsEmail] = useState('');
  const email = useDebounced(asEmail.trim().toLowerCase(), 300);
  const found = useApi<Page<Subscriber>>(
    email ? `/subscribers${query({ q: email, limit: 5 })}` : null,
  );
  const subscriber = email
    ? found.data?.data.find((candidate) => candidate.email.toLowerCase() === email)
    : undefined;
  const content = {
    subject: settled.subject,
    html: settled.html || null,
    text: settled.text || null,
  };
  const result = useLiveResult<Rendered>(
    '/templates/render',
    subscriber
      ? { ...content, subscriber_id: subscriber.id }
      : sampleError
        ? undefined
        : { ...content, data },
  );
  const renderError = result.error?.explain().join('\n');

  const rendered = result.data;
  return (
    <section className="preview" aria-labelledby="preview-title">
      <div className="preview-head">
        <h2 id="preview-title">Preview</h2>
        <div className="tabs" role="group" aria-label="Preview format">
          {(['html', 'text'] as const).map((format) => (
            <button
              key={format}
              type="button"
              aria-pressed={tab === format}
              className={tab === format ? 'tab tab-active' : 'tab'}
              onClick={() => setTab(format)}
            >
              {format === 'html' ? 'HTML' : 'Text'}
            </button>
          ))}
        </div>
      </div>
      <TextField
        label="Preview as subscriber (optional)"
        type="email"
        placeholder="Email of one of your subscribers"
        value={asEmail}
        onChange={(event) => setAsEmail(event.target.value)}
        hint={
          subscriber
            ? `Using ${subscriber.email}’s own fields.`
            : email && !found.loading
              ? 'No subscriber has this email: using the sample data.'
              : 'Leave empty to use the sample data.'
        }
      />
      {sampleError && !subscriber && <ErrorNotice>{sampleError}</ErrorNotice>}
      {renderError && (
        <div className="notice notice-error" role="alert">
          <pre className="pre-wrap">{renderError}</pre>
        </div>
      )}
      {rendered && (
        <div className="preview-body">
          <p className="preview-subject">
            <span className="muted">Subject:</span>{' '}
            <strong data-testid="preview-subject">{rendered.subject}</strong>
          </p>
          {tab === 'html' ? (
            rendered.html ? (
              // Sandboxed without scripts: the email's HTML can style itself but run nothing.
              <iframe
                title="Rendered HTML email"
                className="preview-frame"
                sandbox=""
                srcDoc={rendered.html}
              />
            ) : (
              <p className="muted">No HTML body.</p>
            )
          ) : (
            <pre className="preview-text">{rendered.text ?? 'No text body.'}</pre>
          )}
        </div>
      )}
    </section>
  );
}
