import { FormEvent, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { api, ApiFailure, query } from '../api/client';
import { toFailure, useApi, useDebounced } from '../api/hooks';
import type { Page, Subscriber } from '../api/types';
import { Dialog } from '../ui/Dialog';
import { TextField } from '../ui/Field';
import { formatDate, fullName } from '../ui/format';
import { EmptyState, ErrorNotice, Loading } from '../ui/Notice';
import { PageHeader } from '../ui/PageHeader';
import { Pager, useCursorPager } from '../ui/Pager';
import { StatusBadge } from './KeysPage';

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
          <button type="button" className="button button-primary" onClick={() => setAdding(true)}>
            Add subscriber
          </button>
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
      {page.error && <ErrorNotice>{page.error.message}</ErrorNotice>}
      {!page.data && page.loading && <Loading />}
      {page.data?.data.length === 0 && (
        <EmptyState title={q ? `No subscriber’s email contains “${q}”` : 'No subscribers yet'}>
          {!q && <p>Add one here, or create them through the API with a subscribers:write key.</p>}
        </EmptyState>
      )}
      {page.data && page.data.data.length > 0 && (
        <div className="table-wrap">
          <table className="table">
            <caption className="visually-hidden">Subscribers</caption>
            <thead>
              <tr>
                <th scope="col">Email</th>
                <th scope="col">Name</th>
                <th scope="col">Status</th>
                <th scope="col">Tags</th>
                <th scope="col">Added</th>
              </tr>
            </thead>
            <tbody>
              {page.data.data.map((subscriber) => (
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
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager
        page={pager.page}
        nextCursor={page.data?.next_cursor}
        onNext={pager.next}
        onPrevious={pager.previous}
      />
      {adding && <AddSubscriberDialog onClose={() => setAdding(false)} />}
    </>
  );
}

function AddSubscriberDialog({ onClose }: { onClose(): void }) {
  const navigate = useNavigate();
  const [failure, setFailure] = useState<ApiFailure>();
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const text = (name: string) => (form.get(name) as string).trim() || undefined;
    setBusy(true);
    setFailure(undefined);
    try {
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
    } catch (error) {
      setFailure(toFailure(error));
      setBusy(false);
    }
  };

  return (
    <Dialog open title="Add subscriber" onClose={onClose}>
      <form onSubmit={(event) => void submit(event)} noValidate>
        <TextField
          label="Email"
          name="email"
          type="email"
          required
          error={failure?.fieldMessage('email')}
        />
        <div className="field-row">
          <TextField label="First name" name="first_name" />
          <TextField label="Last name" name="last_name" />
        </div>
        <TextField label="Tags" name="tags" hint="Separate tags with commas." />
        {failure && failure.details.length === 0 && <ErrorNotice>{failure.message}</ErrorNotice>}
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
