import { useState } from 'react';
import { api } from '../api/client';
import { useApi } from '../api/hooks';
import type { ApiKey, CreatedKey, ScopeGroup } from '../api/types';
import { ConfirmDialog } from '../ui/ConfirmDialog';
import { CopyButton } from '../ui/CopyButton';
import { ListTable } from '../ui/DataTable';
import { Dialog } from '../ui/Dialog';
import { TextField } from '../ui/Field';
import { formatAgo, formatDate } from '../ui/format';
import { EmptyState, ErrorNotice, Loading, WarningNotice } from '../ui/Notice';
import { FormFailure } from '../ui/FormFailure';
import { PageHeader } from '../ui/PageHeader';
import { useFormSubmit } from '../ui/useFormSubmit';

/** Account > API Keys: the only place keys are created, named and scoped. */
export function KeysPage() {
  const keys = useApi<{ data: ApiKey[] }>('/keys');
  const [creating, setCreating] = useState(false);
  const [revoking, setRevoking] = useState<ApiKey>();

  return (
    <>
      <PageHeader
        title="API keys"
        description="Keys let your code call the Herald API. Each key holds only the scopes you choose."
        actions={
          <button type="button" className="button button-primary" onClick={() => setCreating(true)}>
            Create key
          </button>
        }
      />
      <ListTable
        list={keys}
        empty={
          <EmptyState title="No API keys yet">
            <p>Create a key to start sending from your application.</p>
          </EmptyState>
        }
        caption="API keys of this account"
        columns={[
          'Name',
          'Key',
          'Scopes',
          'Status',
          'Created',
          'Last used',
          <span className="visually-hidden">Actions</span>,
        ]}
      >
        {(key) => (
          <tr key={key.id}>
            <td className="strong">{key.name}</td>
            <td className="nowrap">
              <code>{key.redacted}</code>
            </td>
            <td>
              <ul className="chips" aria-label={`Scopes of ${key.name}`}>
                {key.scopes.map((scope) => (
                  <li key={scope} className="chip">
                    {scope}
                  </li>
                ))}
              </ul>
            </td>
            <td>
              <StatusBadge status={key.status} />
            </td>
            <td className="nowrap">{formatDate(key.created_at)}</td>
            <td className="nowrap">{formatAgo(key.last_used_at)}</td>
            <td className="cell-actions">
              {key.status === 'active' && (
                <button
                  type="button"
                  className="button button-small button-danger-ghost"
                  onClick={() => setRevoking(key)}
                  aria-label={`Revoke ${key.name}`}
                >
                  Revoke
                </button>
              )}
            </td>
          </tr>
        )}
      </ListTable>
      {creating && (
        <CreateKeyDialog
          onClose={() => {
            setCreating(false);
            keys.reload();
          }}
        />
      )}
      <ConfirmDialog
        open={revoking !== undefined}
        title={`Revoke “${revoking?.name ?? ''}”?`}
        confirmLabel="Revoke key"
        danger
        onClose={() => setRevoking(undefined)}
        onConfirm={async () => {
          await api(`/keys/${revoking!.id}/revoke`, { method: 'POST' });
          keys.reload();
        }}
      >
        <p>
          Every request that uses <code>{revoking?.redacted}</code> will be refused with 401 from
          now on. This cannot be undone; create a new key if you need one again.
        </p>
      </ConfirmDialog>
    </>
  );
}

export function StatusBadge({ status }: { status: string }) {
  return <span className={`badge badge-${status}`}>{status}</span>;
}

function CreateKeyDialog({ onClose }: { onClose(): void }) {
  const catalog = useApi<{ data: ScopeGroup[] }>('/scopes');
  const [created, setCreated] = useState<CreatedKey>();

  const { failure, busy, submit } = useFormSubmit(async (form) => {
    setCreated(
      await api<CreatedKey>('/keys', {
        method: 'POST',
        body: { name: form.get('name'), scopes: form.getAll('scopes') },
      }),
    );
  });

  if (created) {
    return (
      <Dialog
        open
        wide
        title="Your new API key"
        onClose={onClose}
        footer={
          <button type="button" className="button button-primary" onClick={onClose}>
            I have stored it safely
          </button>
        }
      >
        <WarningNotice>
          <strong>Copy this key now: you will not see it again.</strong> Herald stores only a hash
          of it. If you lose it, create a new key and revoke this one.
        </WarningNotice>
        <div className="secret">
          <label className="secret-label" htmlFor="new-key-secret">
            Secret for “{created.name}”
          </label>
          <div className="secret-row">
            <input
              id="new-key-secret"
              className="secret-value"
              readOnly
              value={created.secret}
              onFocus={(event) => event.currentTarget.select()}
            />
            <CopyButton text={created.secret} />
          </div>
          <p className="field-hint">
            Send it as <code>Authorization: Bearer {created.redacted}</code>. Scopes:{' '}
            {created.scopes.join(', ')}.
          </p>
        </div>
      </Dialog>
    );
  }

  const scopeError = failure?.fieldMessage('scopes');
  return (
    <Dialog open wide title="Create API key" onClose={onClose}>
      <form onSubmit={(event) => void submit(event)} noValidate>
        <TextField
          label="Name"
          name="name"
          required
          maxLength={100}
          placeholder="e.g. Production web app"
          hint="So you can tell your keys apart."
          error={failure?.fieldMessage('name')}
        />
        <fieldset className="scopes" aria-describedby={scopeError ? 'scope-error' : undefined}>
          <legend>Scopes</legend>
          <p className="field-hint">A key can call only the endpoints its scopes allow.</p>
          {catalog.error && <ErrorNotice>{catalog.error.message}</ErrorNotice>}
          {!catalog.data && <Loading label="Loading scopes…" />}
          <div className="scope-groups">
            {catalog.data?.data.map((group) => (
              <fieldset key={group.resource} className="scope-group">
                <legend className="scope-group-title">{group.resource}</legend>
                {group.scopes.map(({ scope, grants }) => (
                  <label key={scope} className="check">
                    <input type="checkbox" name="scopes" value={scope} />
                    <span>
                      <code>{scope}</code>
                      <span className="check-hint">{grants}</span>
                    </span>
                  </label>
                ))}
              </fieldset>
            ))}
          </div>
          {scopeError && (
            <p className="field-error" id="scope-error">
              {scopeError}
            </p>
          )}
        </fieldset>
        <FormFailure failure={failure} fields={['name', 'scopes']} />
        <div className="form-actions">
          <button type="button" className="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="button button-primary" disabled={busy}>
            {busy ? 'Creating…' : 'Create key'}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
