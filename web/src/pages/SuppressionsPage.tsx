import { useState } from 'react';
import { api, query } from '../api/client';
import { useApi } from '../api/hooks';
import type { Page, Suppression } from '../api/types';
import { ConfirmDialog } from '../ui/ConfirmDialog';
import { PagedTable } from '../ui/DataTable';
import { Dialog } from '../ui/Dialog';
import { TextField } from '../ui/Field';
import { formatDate } from '../ui/format';
import { EmptyState } from '../ui/Notice';
import { FormFailure } from '../ui/FormFailure';
import { PageHeader } from '../ui/PageHeader';
import { useCursorPager } from '../ui/Pager';
import { useFormSubmit } from '../ui/useFormSubmit';

const PAGE_SIZE = 50;

/** Why an address is listed, in words; the reason codes are the API's. */
const REASONS: Record<string, string> = {
  manual: 'Added by hand',
  hard_bounce: 'Bounced',
  complaint: 'Marked as spam',
  unsubscribe: 'Unsubscribed',
};

/**
 * Subscribers > Suppressions: addresses Herald will not mail, whether or not they are
 * subscribers. Herald adds bounces, complaints and unsubscribes itself; removing an entry is
 * the one way back, so it asks first.
 */
export function SuppressionsPage() {
  const [version, setVersion] = useState(0);
  const pager = useCursorPager(String(version));
  const page = useApi<Page<Suppression>>(
    `/suppressions${query({ cursor: pager.cursor, limit: PAGE_SIZE })}`,
  );
  const [adding, setAdding] = useState(false);
  const [removing, setRemoving] = useState<Suppression>();
  const reload = () => {
    setVersion(version + 1);
    page.reload();
  };

  return (
    <>
      <PageHeader
        title="Suppressions"
        description="Addresses no campaign or transactional message goes to: hard bounces, spam complaints, unsubscribes and the ones you add."
        actions={
          <button type="button" className="button button-primary" onClick={() => setAdding(true)}>
            Suppress an address
          </button>
        }
      />
      <PagedTable
        list={page}
        pager={pager}
        empty={
          <EmptyState title="No suppressed addresses">
            <p>Bounces, complaints and unsubscribes will be listed here as they happen.</p>
          </EmptyState>
        }
        caption="Suppressed addresses"
        columns={['Email', 'Reason', 'Since', <span className="visually-hidden">Actions</span>]}
      >
        {(entry) => (
          <tr key={entry.email}>
            <td className="strong">{entry.email}</td>
            <td>
              <span className={`badge badge-${entry.reason}`}>
                {REASONS[entry.reason] ?? entry.reason}
              </span>
            </td>
            <td className="nowrap">{formatDate(entry.created_at)}</td>
            <td className="cell-actions">
              <button
                type="button"
                className="button button-small button-danger-ghost"
                onClick={() => setRemoving(entry)}
                aria-label={`Remove ${entry.email}`}
              >
                Remove
              </button>
            </td>
          </tr>
        )}
      </PagedTable>
      {adding && (
        <AddSuppressionDialog
          onClose={() => {
            setAdding(false);
            reload();
          }}
        />
      )}
      <ConfirmDialog
        open={removing !== undefined}
        title={`Mail ${removing?.email ?? ''} again?`}
        confirmLabel="Remove from the list"
        danger
        onClose={() => setRemoving(undefined)}
        onConfirm={async () => {
          await api(`/suppressions/${encodeURIComponent(removing!.email)}`, { method: 'DELETE' });
          reload();
        }}
      >
        <p>
          Campaigns and transactional sends will reach this address again.
          {removing && removing.reason !== 'manual' && (
            <>
              {' '}
              It is listed because of a{' '}
              {removing.reason === 'hard_bounce'
                ? 'bounce'
                : removing.reason === 'complaint'
                  ? 'spam complaint'
                  : 'unsubscribe'}
              : mailing it again can hurt your sending reputation. Only remove it when the person
              asked you to.
            </>
          )}{' '}
          The removal is recorded in the audit log.
        </p>
      </ConfirmDialog>
    </>
  );
}

function AddSuppressionDialog({ onClose }: { onClose(): void }) {
  const { failure, busy, submit } = useFormSubmit(async (form) => {
    await api('/suppressions', {
      method: 'POST',
      body: { email: (form.get('email') as string).trim() },
    });
    onClose();
  });

  return (
    <Dialog open title="Suppress an address" onClose={onClose}>
      <form onSubmit={(event) => void submit(event)} noValidate>
        <TextField
          label="Email"
          name="email"
          type="email"
          required
          hint="Nothing will be sent to it until you remove it here."
          error={failure?.fieldMessage('email')}
        />
        <FormFailure failure={failure} fields={['email']} />
        <div className="form-actions">
          <button type="button" className="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="button button-primary" disabled={busy}>
            Suppress
          </button>
        </div>
      </form>
    </Dialog>
  );
}
