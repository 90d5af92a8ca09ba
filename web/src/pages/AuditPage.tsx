import { useApi } from '../api/hooks';
import type { Actor, AuditEvent, Page } from '../api/types';
import { query } from '../api/client';
import { formatDateTime } from '../ui/format';
import { PagedTable } from '../ui/DataTable';
import { EmptyState } from '../ui/Notice';
import { PageHeader } from '../ui/PageHeader';
import { useCursorPager } from '../ui/Pager';

/** Plain words for the actions Herald records. Unknown ones show as recorded. */
const ACTIONS: Record<string, string> = {
  'account.created': 'Created the account',
  'user.signed_in': 'Signed in',
  'user.password_reset_requested': 'Asked for a password reset link',
  'user.password_reset': 'Set a new password from a reset link',
  'invitation.created': 'Invited someone',
  'invitation.revoked': 'Withdrew an invitation',
  'invitation.accepted': 'Joined through an invitation',
  'user.role_changed': 'Changed someone’s role',
  'user.removed': 'Removed someone from the account',
  'api_key.created': 'Created an API key',
  'api_key.revoked': 'Revoked an API key',
  'identity.erased': 'Erased an identity',
  'identity.erased_from_dashboard': 'Erased an identity from the dashboard',
  'erased_identity.write_refused': 'Refused a write to an erased identity',
  'campaign.sent': 'Sent a campaign',
  'campaign.scheduled': 'Scheduled a campaign',
  'campaign.unscheduled': 'Unscheduled a campaign',
  'campaign.schedule_failed':
    'A scheduled campaign went back to draft: its From may no longer send',
  'campaign.paused': 'Paused a campaign',
  'campaign.resumed': 'Resumed a campaign',
  'campaign.cancelled': 'Cancelled a campaign',
  'campaign.test_sent': 'Sent a test of a campaign',
  'campaign.duplicated': 'Duplicated a campaign',
  'sender_domain.added': 'Added a sender domain',
  'sender_domain.deleted': 'Deleted a sender domain',
  'sender_domain.verified': 'A sender domain was verified',
  'sender_domain.failed': 'A sender domain failed verification',
  'sender_domain.pending': 'A sender domain awaits verification',
  'sender_domain.rotation_started': 'Started a DKIM key rotation',
  'sender_domain.key_rotated': 'A new DKIM key took over signing',
  'campaign.created': 'Created a campaign',
  'campaign.deleted': 'Deleted a campaign',
  'template.created': 'Created a template',
  'template.deleted': 'Deleted a template',
  'segment.created': 'Created a segment',
  'segment.deleted': 'Deleted a segment',
  'suppression.added': 'Suppressed an address',
  'suppression.removed': 'Removed an address from the suppression list',
  'subscriber.resubscribed': 'A subscriber subscribed again',
  'account.postal_address_updated': 'Changed the postal address',
};

export function AuditPage() {
  const pager = useCursorPager('audit');
  const page = useApi<Page<AuditEvent>>(`/audit${query({ cursor: pager.cursor, limit: 50 })}`);

  return (
    <>
      <PageHeader
        title="Audit log"
        description="Who did what in this account. People acted upon appear only as keyed hashes, never as email addresses."
      />
      <PagedTable
        list={page}
        pager={pager}
        empty={<EmptyState title="Nothing recorded yet" />}
        caption="Audit events, newest first"
        columns={['When', 'Who', 'What', 'Subject (hash)', 'Details']}
      >
        {(event) => (
          <tr key={event.id}>
            <td className="nowrap">{formatDateTime(event.at)}</td>
            <td>
              <ActorLabel actor={event.actor} />
            </td>
            <td>
              {ACTIONS[event.action] ?? event.action}
              <div className="muted mono small">{event.action}</div>
            </td>
            <td className="nowrap">
              {event.subject_hash ? (
                <code className="hash" title={event.subject_hash}>
                  {event.subject_hash.slice(0, 12)}…
                </code>
              ) : (
                '—'
              )}
            </td>
            <td className="small">
              {Object.entries(event.metadata)
                .map(([key, value]) => `${key}: ${String(value)}`)
                .join(' · ') || '—'}
            </td>
          </tr>
        )}
      </PagedTable>
    </>
  );
}

function ActorLabel({ actor }: { actor: Actor }) {
  if (actor.type === 'user') {
    return (
      <span>
        <span className="badge badge-neutral">person</span> {actor.email ?? 'former member'}
      </span>
    );
  }
  if (actor.type === 'api_key') {
    return (
      <span>
        <span className="badge badge-neutral">API key</span> {actor.name ?? 'deleted key'}{' '}
        {actor.redacted && <code className="small">{actor.redacted}</code>}
      </span>
    );
  }
  return <span className="muted">Herald</span>;
}
