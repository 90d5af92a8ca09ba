import { useState } from 'react';
import { api, ApiFailure } from '../api/client';
import { useApi } from '../api/hooks';
import type { CreatedInvitation, Invitation, Person } from '../api/types';
import { useSession } from '../session';
import { ConfirmDialog } from '../ui/ConfirmDialog';
import { CopyButton } from '../ui/CopyButton';
import { ListTable } from '../ui/DataTable';
import { Dialog } from '../ui/Dialog';
import { TextField } from '../ui/Field';
import { formatAgo, formatDate } from '../ui/format';
import { EmptyState, ErrorNotice, InfoNotice, WarningNotice } from '../ui/Notice';
import { FormFailure } from '../ui/FormFailure';
import { PageHeader } from '../ui/PageHeader';
import { useFormSubmit } from '../ui/useFormSubmit';
import { StatusBadge } from './KeysPage';

const ROLES = ['owner', 'admin', 'member'];

/**
 * Account > People: the account's members and their roles, and the invitations to join it.
 * Owners change roles and remove anyone; admins invite and remove members; members look
 * (the server decides, src/dashboard/people/roles.ts; this only hides what would be refused).
 */
export function PeoplePage() {
  const { session } = useSession();
  const role = session?.user?.role;
  const isOwner = role === 'owner';
  const canInvite = role === 'owner' || role === 'admin';
  const canRemove = (person: Person) => isOwner || (role === 'admin' && person.role === 'member');
  const people = useApi<{ data: Person[] }>('/people');
  const invitations = useApi<{ data: Invitation[] }>('/invitations');
  const [inviting, setInviting] = useState(false);
  const [revoking, setRevoking] = useState<Invitation>();
  const [removing, setRemoving] = useState<Person>();
  const [roleError, setRoleError] = useState<string>();

  const changeRole = async (person: Person, to: string) => {
    setRoleError(undefined);
    try {
      await api(`/people/${person.id}`, { method: 'PATCH', body: { role: to } });
    } catch (failure) {
      setRoleError(failure instanceof ApiFailure ? failure.message : String(failure));
    }
    people.reload();
  };

  return (
    <>
      <PageHeader
        title="People"
        description="Everyone who signs in to this account. People join through an invitation link from an owner or admin. Owners manage everything, people and roles included; admins everything but roles, and they can remove members; members everything but API keys, invitations and people."
        actions={
          canInvite && (
            <button
              type="button"
              className="button button-primary"
              onClick={() => setInviting(true)}
            >
              Invite someone
            </button>
          )
        }
      />
      <ListTable
        list={people}
        empty={<EmptyState title="Nobody yet" />}
        caption="Members of this account"
        columns={[
          'Name',
          'Email',
          'Role',
          'Joined',
          'Last signed in',
          <span className="visually-hidden">Actions</span>,
        ]}
      >
        {(person) => (
          <tr key={person.id}>
            <td className="strong">{person.name ?? '—'}</td>
            <td>{person.email}</td>
            <td>
              {isOwner ? (
                <select
                  aria-label={`Role of ${person.email}`}
                  value={person.role}
                  onChange={(event) => void changeRole(person, event.currentTarget.value)}
                >
                  {ROLES.map((option) => (
                    <option key={option} value={option}>
                      {option}
                    </option>
                  ))}
                </select>
              ) : (
                person.role
              )}
            </td>
            <td className="nowrap">{formatDate(person.created_at)}</td>
            <td className="nowrap">{formatAgo(person.last_sign_in_at)}</td>
            <td className="cell-actions">
              {canRemove(person) && (
                <button
                  type="button"
                  className="button button-small button-danger-ghost"
                  onClick={() => setRemoving(person)}
                  aria-label={`Remove ${person.email}`}
                >
                  Remove
                </button>
              )}
            </td>
          </tr>
        )}
      </ListTable>
      {roleError && <ErrorNotice>{roleError}</ErrorNotice>}

      <h2 className="subsection-title">Invitations</h2>
      <ListTable
        list={invitations}
        empty={
          <EmptyState title="No invitations">
            <p>
              {canInvite
                ? 'Invite someone to give them their own sign-in to this account.'
                : 'An owner or admin of the account can invite people.'}
            </p>
          </EmptyState>
        }
        caption="Invitations to join this account, newest first"
        columns={[
          'Email',
          'Status',
          'Sent',
          'Expires',
          <span className="visually-hidden">Actions</span>,
        ]}
      >
        {(invitation) => (
          <tr key={invitation.id}>
            <td className="strong">{invitation.email}</td>
            <td>
              <StatusBadge status={invitation.status} />
            </td>
            <td className="nowrap">{formatDate(invitation.created_at)}</td>
            <td className="nowrap">{formatDate(invitation.expires_at)}</td>
            <td className="cell-actions">
              {canInvite && invitation.status === 'pending' && (
                <button
                  type="button"
                  className="button button-small button-danger-ghost"
                  onClick={() => setRevoking(invitation)}
                  aria-label={`Withdraw the invitation to ${invitation.email}`}
                >
                  Withdraw
                </button>
              )}
            </td>
          </tr>
        )}
      </ListTable>
      {inviting && (
        <InviteDialog
          onClose={() => {
            setInviting(false);
            invitations.reload();
          }}
        />
      )}
      <ConfirmDialog
        open={revoking !== undefined}
        title={`Withdraw the invitation to ${revoking?.email ?? ''}?`}
        confirmLabel="Withdraw invitation"
        danger
        onClose={() => setRevoking(undefined)}
        onConfirm={async () => {
          await api(`/invitations/${revoking!.id}/revoke`, { method: 'POST' });
          invitations.reload();
        }}
      >
        <p>The link stops working at once. You can invite the same person again later.</p>
      </ConfirmDialog>
      <ConfirmDialog
        open={removing !== undefined}
        title={`Remove ${removing?.email ?? ''} from this account?`}
        confirmLabel="Remove"
        danger
        onClose={() => setRemoving(undefined)}
        onConfirm={async () => {
          await api(`/people/${removing!.id}`, { method: 'DELETE' });
          people.reload();
        }}
      >
        <p>
          They are signed out everywhere at once and can no longer sign in. The API keys of the
          account keep working; revoke those they used under API keys.
        </p>
      </ConfirmDialog>
    </>
  );
}

function InviteDialog({ onClose }: { onClose(): void }) {
  const [created, setCreated] = useState<CreatedInvitation>();
  const { failure, busy, submit } = useFormSubmit(async (form) => {
    setCreated(
      await api<CreatedInvitation>('/invitations', {
        method: 'POST',
        body: { email: form.get('email') },
      }),
    );
  });

  if (created) {
    return (
      <Dialog
        open
        wide
        title={`Invitation for ${created.email}`}
        onClose={onClose}
        footer={
          <button type="button" className="button button-primary" onClick={onClose}>
            Done
          </button>
        }
      >
        {created.emailed ? (
          <InfoNotice>We emailed this link to {created.email}.</InfoNotice>
        ) : (
          <WarningNotice>
            <strong>Send this link to {created.email} yourself</strong>: this installation has no
            mail relay, so Herald did not email it.
          </WarningNotice>
        )}
        <div className="secret">
          <label className="secret-label" htmlFor="invitation-link">
            Invitation link (shown only now)
          </label>
          <div className="secret-row">
            <input
              id="invitation-link"
              className="secret-value"
              readOnly
              value={created.url}
              onFocus={(event) => event.currentTarget.select()}
            />
            <CopyButton text={created.url} />
          </div>
          <p className="field-hint">
            It works once, until {formatDate(created.expires_at)}. Whoever opens it can join this
            account, so share it only with {created.email}.
          </p>
        </div>
      </Dialog>
    );
  }

  return (
    <Dialog open title="Invite someone" onClose={onClose}>
      <form onSubmit={(event) => void submit(event)} noValidate>
        <TextField
          label="Their email"
          name="email"
          type="email"
          required
          maxLength={254}
          hint="They will sign in with this email. The link is valid for 7 days."
          error={failure?.fieldMessage('email')}
        />
        <FormFailure failure={failure} fields={['email']} />
        <div className="form-actions">
          <button type="button" className="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="button button-primary" disabled={busy}>
            {busy ? 'Inviting…' : 'Create invitation'}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
