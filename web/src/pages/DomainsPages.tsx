import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { api, query } from '../api/client';
import { toFailure, useApi } from '../api/hooks';
import type { DomainRecord, Page, SenderDomain } from '../api/types';
import { ConfirmDialog } from '../ui/ConfirmDialog';
import { CopyButton } from '../ui/CopyButton';
import { PagedTable } from '../ui/DataTable';
import { Dialog } from '../ui/Dialog';
import { TextField } from '../ui/Field';
import { formatAgo, formatDateTime } from '../ui/format';
import { EmptyState, ErrorNotice, InfoNotice, Loading, WarningNotice } from '../ui/Notice';
import { FormFailure } from '../ui/FormFailure';
import { PageHeader } from '../ui/PageHeader';
import { useCursorPager } from '../ui/Pager';
import { useFormSubmit } from '../ui/useFormSubmit';
import { StatusBadge } from './KeysPage';

/** What each record does, in the words the page shows. */
const PURPOSES: Record<DomainRecord['purpose'], { title: string; why: string }> = {
  dkim: {
    title: 'DKIM key',
    why: 'Required. Receivers check Herald’s signature on your mail against this key; it also proves the domain is yours.',
  },
  spf: {
    title: 'SPF',
    why: 'Recommended. Lets Herald’s servers send for your bounce subdomain, so SPF passes aligned with your domain.',
  },
  return_path: {
    title: 'Return path',
    why: 'Recommended. Bounces come back to Herald through this subdomain.',
  },
  dmarc: {
    title: 'DMARC',
    why: 'Recommended. Tells receivers what to do with mail that fails DKIM and SPF; keep your own policy if you have one.',
  },
};

export function DomainsPage() {
  const pager = useCursorPager('domains');
  const page = useApi<Page<SenderDomain>>(`/domains${query({ cursor: pager.cursor })}`);
  const [adding, setAdding] = useState(false);

  return (
    <>
      <PageHeader
        title="Sender domains"
        description="Mail leaves Herald only from domains you have verified, signed with each domain’s own key."
        actions={
          <button type="button" className="button button-primary" onClick={() => setAdding(true)}>
            Add domain
          </button>
        }
      />
      <PagedTable
        list={page}
        pager={pager}
        empty={
          <EmptyState title="No sender domains yet">
            <p>
              Add the domain your From addresses use, then publish the DNS records Herald gives.
            </p>
          </EmptyState>
        }
        caption="Sender domains"
        columns={['Domain', 'Status', 'Verified', 'Last checked']}
      >
        {(domain) => (
          <tr key={domain.id}>
            <td>
              <Link className="strong" to={`/domains/${domain.id}`}>
                {domain.name}
              </Link>
            </td>
            <td>
              <StatusBadge status={domain.status} />
            </td>
            <td className="nowrap">{formatDateTime(domain.verified_at)}</td>
            <td className="nowrap">{formatAgo(domain.last_checked_at)}</td>
          </tr>
        )}
      </PagedTable>
      {adding && <AddDomainDialog onClose={() => setAdding(false)} />}
    </>
  );
}

function AddDomainDialog({ onClose }: { onClose(): void }) {
  const navigate = useNavigate();
  const { failure, busy, submit } = useFormSubmit(
    async (form) => {
      const created = await api<SenderDomain>('/domains', {
        method: 'POST',
        body: { name: form.get('name') },
      });
      void navigate(`/domains/${created.id}`);
    },
    { stayBusy: true },
  );

  return (
    <Dialog open title="Add a sender domain" onClose={onClose}>
      <form onSubmit={(event) => void submit(event)} noValidate>
        <TextField
          label="Domain"
          name="name"
          required
          maxLength={253}
          placeholder="e.g. acme.com"
          autoComplete="off"
          hint="The part after the @ of your From addresses. Herald creates a signing key for it."
          error={failure?.fieldMessage('name')}
        />
        <FormFailure failure={failure} fields={['name']} />
        <div className="form-actions">
          <button type="button" className="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="button button-primary" disabled={busy}>
            {busy ? 'Adding…' : 'Add domain'}
          </button>
        </div>
      </form>
    </Dialog>
  );
}

export function DomainDetailPage() {
  const { id = '' } = useParams();
  const navigate = useNavigate();
  const path = `/domains/${encodeURIComponent(id)}`;
  const loaded = useApi<SenderDomain>(path);
  // The answer of the last action, shown until the page loads again.
  const [latest, setLatest] = useState<SenderDomain>();
  const [action, setAction] = useState<'verify' | 'rotate'>();
  const [actionError, setActionError] = useState<string>();
  const [deleting, setDeleting] = useState(false);
  const [rotating, setRotating] = useState(false);

  if (loaded.error) return <ErrorNotice>{loaded.error.message}</ErrorNotice>;
  const domain = latest?.id === id ? latest : loaded.data;
  if (!domain) return <Loading />;

  const run = async (kind: 'verify' | 'rotate') => {
    setAction(kind);
    setActionError(undefined);
    try {
      setLatest(await api<SenderDomain>(`${path}/${kind}`, { method: 'POST' }));
    } catch (error) {
      setActionError(toFailure(error).message);
    } finally {
      setAction(undefined);
    }
  };

  return (
    <>
      <p className="breadcrumb">
        <Link to="/domains">Sender domains</Link>
      </p>
      <PageHeader
        title={domain.name}
        description={
          <>
            <StatusBadge status={domain.status} />
            {domain.verified_at && <> · verified {formatDateTime(domain.verified_at)}</>} · last
            checked {formatAgo(domain.last_checked_at).toLowerCase()}
          </>
        }
        actions={
          <>
            <button
              type="button"
              className="button button-danger-ghost"
              onClick={() => setDeleting(true)}
            >
              Delete…
            </button>
            {domain.status === 'verified' && !domain.pending_dkim_selector && (
              <button type="button" className="button" onClick={() => setRotating(true)}>
                Rotate key…
              </button>
            )}
            <button
              type="button"
              className="button button-primary"
              disabled={action !== undefined}
              onClick={() => void run('verify')}
            >
              {action === 'verify' ? 'Checking DNS…' : 'Verify now'}
            </button>
          </>
        }
      />
      {actionError && <ErrorNotice>{actionError}</ErrorNotice>}
      <StatusSummary domain={domain} />
      <section className="section" aria-labelledby="records-title">
        <h2 id="records-title">DNS records</h2>
        <p className="muted">
          Add these at your DNS provider, then verify. Herald checks them again every day.
        </p>
        <ul className="dns-records">
          {domain.records.map((record) => (
            <RecordCard
              key={`${record.purpose} ${record.name}`}
              record={record}
              next={
                record.purpose === 'dkim' &&
                record.name.startsWith(`${domain.pending_dkim_selector}.`)
              }
            />
          ))}
        </ul>
      </section>
      <ConfirmDialog
        open={rotating}
        title="Rotate the DKIM key?"
        confirmLabel="Create new key"
        onClose={() => setRotating(false)}
        onConfirm={() => run('rotate')}
      >
        <p>
          Herald creates a new key with its own selector. The current key keeps signing until you
          have published the new record and Herald has found it; then the new key signs, with no
          gap. Remove the old record a day after that.
        </p>
      </ConfirmDialog>
      <ConfirmDialog
        open={deleting}
        title={`Delete ${domain.name}?`}
        confirmLabel="Delete domain"
        danger
        onClose={() => setDeleting(false)}
        onConfirm={async () => {
          await api(path, { method: 'DELETE' });
          void navigate('/domains');
        }}
      >
        <p>
          Mail from <code>@{domain.name}</code> will be refused from now on, and its signing keys
          are destroyed. Adding the domain again creates new keys and new records to publish.
        </p>
      </ConfirmDialog>
    </>
  );
}

function StatusSummary({ domain }: { domain: SenderDomain }) {
  if (domain.pending_dkim_selector) {
    return (
      <InfoNotice>
        Key rotation in progress: publish the new DKIM record (selector{' '}
        <code>{domain.pending_dkim_selector}</code>) and verify. Until Herald finds it, the current
        key (<code>{domain.dkim_selector}</code>) signs.
      </InfoNotice>
    );
  }
  if (domain.status === 'verified') {
    return (
      <InfoNotice>
        Verified: mail from <code>@{domain.name}</code> is signed with selector{' '}
        <code>{domain.dkim_selector}</code>.
      </InfoNotice>
    );
  }
  if (domain.status === 'failed') {
    return (
      <WarningNotice>
        <strong>Not verified.</strong> The DKIM record is missing or does not hold Herald’s key, so
        mail from <code>@{domain.name}</code> is refused. Each record below says what is wrong.
      </WarningNotice>
    );
  }
  return (
    <InfoNotice>
      Publish the records below at your DNS provider, then choose Verify now. DNS changes can take a
      while to show.
    </InfoNotice>
  );
}

function RecordCard({ record, next }: { record: DomainRecord; next: boolean }) {
  const { title, why } = next
    ? {
        title: PURPOSES.dkim.title,
        why: 'Publish it beside the current key. Once Herald finds it, it signs instead of the current key.',
      }
    : PURPOSES[record.purpose];
  const heading = next ? `${title} (next key)` : title;
  return (
    <li className="dns-record" aria-label={`${heading} record`}>
      <div className="dns-record-head">
        <h3>{heading}</h3>
        <StatusBadge status={record.status} />
      </div>
      <p className="muted small">{why}</p>
      <dl className="details">
        <div className="details-row">
          <dt>Type</dt>
          <dd>
            <code>{record.type}</code>
            {record.priority !== undefined && <> · priority {record.priority}</>}
          </dd>
        </div>
        <div className="details-row">
          <dt>Name</dt>
          <dd className="copy-row">
            <code className="copy-text">{record.name}</code>
            <CopyButton text={record.name} accessibleName={`Copy ${heading} name`} />
          </dd>
        </div>
        <div className="details-row">
          <dt>{record.type === 'MX' ? 'Mail server' : 'Value'}</dt>
          <dd className="copy-row">
            <code className="copy-text">{record.value}</code>
            <CopyButton text={record.value} accessibleName={`Copy ${heading} value`} />
          </dd>
        </div>
      </dl>
      {record.reason && (
        <p className={`dns-record-reason dns-record-reason-${record.status}`}>{record.reason}</p>
      )}
    </li>
  );
}
