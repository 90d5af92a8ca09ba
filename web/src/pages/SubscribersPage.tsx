import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { api, query } from '../api/client';
import { useApi, useDebounced } from '../api/hooks';
import type { Page, Subscriber } from '../api/types';
import { Dialog } from '../ui/Dialog';
import { TextField } from '../ui/Field';
import { formatDate, fullName } from '../ui/format';
import { FormFailure } from '../ui/FormFailure';
import { EmptyState } from '../ui/Notice';
import { PageHeader } from '../ui/PageHeader';
import { useFormSubmit } from '../ui/useFormSubmit';
import { PagedTable } from '../ui/DataTable';
import { useCursorPager } from '../ui/Pager';
import { StatusBadge } from './KeysPage';
import { ExportButton } from './ImportPage';

const PAGE_SIZE = 25;

export function SubscribersPage() {
  const [search, setSearch] = useState('');
  const q = useDebounced(search.trim(), 250);
  const pager = useCursorPager(q);
  const page = useApi<Page<Subscriber>>(
    `/subscribers${query({ q, cursor: pager.cursor, limit: PAGE_SIZE })}`,
  );
  const [adding, setAdding] = useState(false);

  return (
    <>
      <PageHeader
        title="Subscribers"
        description="Everyone your campaigns can reach."
        actions={
          <>
            <ExportButton />
            <Link to="/subscribers/import" className="button">
              Import CSV
            </Link>
            <button type="button" className="button button-primary" onClick={() => setAdding(true)}>
              Add subscriber
            </button>
          </>
        }
      />
      <div className="toolbar" role="search">
        <label htmlFor="subscriber-search" className="visually-hidden">
          Search by email
        </label>
        <input
          id="subscriber-search"
          type="search"
          className="search"
          placeholder="Search by email…"
          value={search}
          onChange={(event) => setSearch(event.target.value)}
        />
        {page.loading && <span className="spinner" role="status" aria-label="Searching" />}
      </div>
      <PagedTable
        list={page}
        pager={pager}
        empty={
          <EmptyState title={q ? `No subscriber’s email contains “${q}”` : 'No subscribers yet'}>
            {!q && (
              <p>Add one here, or create them through the API with a subscribers:write key.</p>
            )}
          </EmptyState>
        }
        caption="Subscribers"
        columns={['Email', 'Name', 'Status', 'Tags', 'Added']}
      >
        {(subscriber) => (
          <tr key={subscriber.id}>
            <td>
              <Link to={`/subscribers/${subscriber.id}`} className="strong">
                {subscriber.email}
              </Link>
            </td>
            <td>{fullName(subscriber) || '—'}</td>
            <td>
              <StatusBadge status={subscriber.status} />
            </td>
            <td>
              <ul className="chips">
                {subscriber.tags.map((tag) => (
                  <li key={tag} className="chip">
                    {tag}
                  </li>
                ))}
              </ul>
            </td>
            <td>{formatDate(subscriber.created_at)}</td>
          </tr>
        )}
      </PagedTable>
      {adding && <AddSubscriberDialog onClose={() => setAdding(false)} />}
    </>
  );
}

const FIELDS = ['email', 'first_name', 'last_name', 'tags'];

function AddSubscriberDialog({ onClose }: { onClose(): void }) {
  const navigate = useNavigate();

  const { failure, busy, submit } = useFormSubmit(
    async (form) => {
      const text = (name: string) => (form.get(name) as string).trim() || undefined;
      const created = await api<Subscriber>('/subscribers', {
        method: 'POST',
        body: {
          email: text('email') ?? '',
          first_name: text('first_name'),
          last_name: text('last_name'),
          tags: text('tags')
            ?.split(',')
            .map((tag) => tag.trim())
            .filter(Boolean),
        },
      });
      void navigate(`/subscribers/${created.id}`);
    },
    { stayBusy: true },
  );

  const error = (field: string) => failure?.fieldMessage(field);
  return (
    <Dialog open title="Add subscriber" onClose={onClose}>
      <form onSubmit={(event) => void submit(event)} noValidate>
        <TextField label="Email" name="email" type="email" required error={error('email')} />
        <div className="field-row">
          <TextField label="First name" name="first_name" error={error('first_name')} />
          <TextField label="Last name" name="last_name" error={error('last_name')} />
        </div>
        <TextField
          label="Tags"
          name="tags"
          hint="Separate tags with commas."
          error={error('tags')}
        />
        <FormFailure failure={failure} fields={FIELDS} />
        <div className="form-actions">
          <button type="button" className="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="button button-primary" disabled={busy}>
            Add subscriber
          </button>
        </div>
      </form>
    </Dialog>
  );
}
