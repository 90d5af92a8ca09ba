import { useEffect, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { api, query } from '../api/client';
import { useApi } from '../api/hooks';
import type {
  AccountSettings,
  Campaign,
  CampaignStats,
  Page,
  Segment,
  Template,
  Timeline,
} from '../api/types';
import { useSession } from '../session';
import { ConfirmDialog } from '../ui/ConfirmDialog';
import { TextAreaField, TextField } from '../ui/Field';
import { formatCount, formatDateTime } from '../ui/format';
import { EmptyState, ErrorNotice, Loading, WarningNotice } from '../ui/Notice';
import { FormFailure } from '../ui/FormFailure';
import { PageHeader } from '../ui/PageHeader';
import { useFormSubmit } from '../ui/useFormSubmit';
import { PagedTable } from '../ui/DataTable';
import { useCursorPager } from '../ui/Pager';
import { TimelineChart } from '../ui/TimelineChart';
import { CampaignActions, CampaignPreview, ProgressNote } from './CampaignOperations';
import { GuardPauseExplanation } from './ReputationGuard';
import { CampaignReport } from './CampaignReport';
import { StatusBadge } from './KeysPage';
import { POSTAL_ADDRESS_HINT } from './SettingsPage';

const POLL_MS = 1000;

export function CampaignsPage() {
  const pager = useCursorPager('campaigns');
  const page = useApi<Page<Campaign>>(`/campaigns${query({ cursor: pager.cursor })}`);
  const sending = page.data?.data.some(
    (campaign) => campaign.status === 'sending' || campaign.status === 'scheduled',
  );
  const { reload } = page;
  useEffect(() => {
    if (!sending) return;
    const timer = setInterval(reload, POLL_MS * 2);
    return () => clearInterval(timer);
  }, [sending, reload]);

  return (
    <>
      <PageHeader
        title="Campaigns"
        description="One message to many subscribers: a template, an audience, and a send."
        actions={
          <Link className="button button-primary" to="/campaigns/new">
            New campaign
          </Link>
        }
      />
      <PagedTable
        list={page}
        pager={pager}
        empty={
          <EmptyState title="No campaigns yet">
            <p>
              Start with a <Link to="/templates/new">template</Link>, optionally a{' '}
              <Link to="/segments/new">segment</Link>, then create a campaign.
            </p>
          </EmptyState>
        }
        caption="Campaigns"
        columns={['Name', 'Status', 'Progress', 'Recipients', 'Created']}
      >
        {(campaign) => (
          <tr key={campaign.id}>
            <td>
              <Link className="strong" to={`/campaigns/${campaign.id}`}>
                {campaign.name}
              </Link>
              <div className="muted small">{campaign.subject}</div>
            </td>
            <td>
              <StatusBadge status={campaign.status} />
            </td>
            <td className="cell-progress">
              {campaign.status === 'draft' ? (
                '—'
              ) : campaign.status === 'scheduled' ? (
                <span className="muted small">{formatDateTime(campaign.send_at)}</span>
              ) : (
                <ProgressBar percent={campaign.progress.percent} label={campaign.name} small />
              )}
            </td>
            <td>
              {campaign.started_at === null ? '—' : formatCount(campaign.progress.recipients)}
            </td>
            <td>{formatDateTime(campaign.created_at)}</td>
          </tr>
        )}
      </PagedTable>
    </>
  );
}

export function NewCampaignPage() {
  const navigate = useNavigate();
  const { session } = useSession();
  const templates = useApi<Page<Template>>('/templates?limit=100');
  const segments = useApi<Page<Segment>>('/segments?limit=100');
  const [subject, setSubject] = useState('');

  const defaultFrom = session?.user
    ? `${session.account?.name ?? 'Herald'} <${session.user.email}>`
    : '';

  const { failure, busy, submit } = useFormSubmit(
    async (form) => {
      const created = await api<Campaign>('/campaigns', {
        method: 'POST',
        body: {
          name: form.get('name'),
          subject: form.get('subject'),
          from: form.get('from'),
          template_id: form.get('template_id') || undefined,
          segment_id: form.get('segment_id') || null,
          rate_per_minute: form.get('rate_per_minute') ? Number(form.get('rate_per_minute')) : null,
        },
      });
      void navigate(`/campaigns/${created.id}`);
    },
    { stayBusy: true },
  );

  if (!templates.data || !segments.data) {
    return templates.error ? <ErrorNotice>{templates.error.message}</ErrorNotice> : <Loading />;
  }
  const error = (field: string) => failure?.fieldMessage(field);
  return (
    <>
      <p className="breadcrumb">
        <Link to="/campaigns">Campaigns</Link>
      </p>
      <PageHeader
        title="New campaign"
        description="Nothing is sent until you press Send on the next page."
      />
      {templates.data.data.length === 0 ? (
        <WarningNotice>
          A campaign takes its content from a template.{' '}
          <Link to="/templates/new">Create a template</Link> first.
        </WarningNotice>
      ) : (
        <form onSubmit={(event) => void submit(event)} noValidate className="narrow-form">
          <TextField
            label="Name"
            name="name"
            required
            hint="Only you see this."
            error={error('name')}
          />
          <div className="field">
            <label htmlFor="template_id">Template</label>
            <select
              id="template_id"
              name="template_id"
              required
              onChange={(event) => {
                const chosen = templates.data?.data.find((t) => t.id === event.target.value);
                if (chosen && !subject) setSubject(chosen.subject);
              }}
              aria-invalid={error('template_id') ? true : undefined}
              aria-describedby={error('template_id') ? 'template_id-error' : undefined}
              defaultValue=""
            >
              <option value="" disabled>
                Choose a template…
              </option>
              {templates.data.data.map((template) => (
                <option key={template.id} value={template.id}>
                  {template.name}
                </option>
              ))}
            </select>
            {error('template_id') && (
              <p className="field-error" id="template_id-error">
                {error('template_id')}
              </p>
            )}
          </div>
          <div className="field">
            <label htmlFor="segment_id">Audience</label>
            <select
              id="segment_id"
              name="segment_id"
              defaultValue=""
              aria-invalid={error('segment_id') ? true : undefined}
              aria-describedby={error('segment_id') ? 'segment_id-error' : undefined}
            >
              <option value="">All subscribers</option>
              {segments.data.data.map((segment) => (
                <option key={segment.id} value={segment.id}>
                  Segment: {segment.name}
                </option>
              ))}
            </select>
            {error('segment_id') && (
              <p className="field-error" id="segment_id-error">
                {error('segment_id')}
              </p>
            )}
          </div>
          <TextField
            label="Subject"
            name="subject"
            required
            value={subject}
            onChange={(event) => setSubject(event.target.value)}
            hint="Merge fields work here too, e.g. {{first_name}}."
            error={error('subject')}
          />
          <TextField
            label="From"
            name="from"
            required
            defaultValue={defaultFrom}
            hint="Name <address@your-domain>"
            error={error('from')}
          />
          <TextField
            label="Send pace (optional)"
            name="rate_per_minute"
            type="number"
            min={1}
            step={1}
            inputMode="numeric"
            hint="At most this many messages a minute, sent at a steady pace: a new sending domain earns its reputation slowly. Leave empty to send as fast as allowed."
            error={error('rate_per_minute')}
          />
          <FormFailure
            failure={failure}
            fields={['name', 'template_id', 'segment_id', 'subject', 'from', 'rate_per_minute']}
          />
          <div className="form-actions">
            <button type="submit" className="button button-primary" disabled={busy}>
              {busy ? 'Creating…' : 'Create campaign'}
            </button>
          </div>
        </form>
      )}
    </>
  );
}

export function CampaignDetailPage() {
  const { id = '' } = useParams();
  const navigate = useNavigate();
  const path = `/campaigns/${encodeURIComponent(id)}`;
  const campaign = useApi<Campaign>(path);
  const status = campaign.data?.status;
  const started = campaign.data?.started_at != null;
  const stats = useApi<CampaignStats>(started ? `${path}/stats` : null);
  const timeline = useApi<Timeline>(started ? `${path}/timeline` : null);
  const [confirming, setConfirming] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const audience = useApi<{ count: number; segment: { name: string } | null }>(
    confirming ? `${path}/audience` : null,
  );
  // The first send asks for the account's postal address, which campaign footers show.
  const settings = useApi<AccountSettings>(confirming ? '/account/settings' : null);
  const [postalAddress, setPostalAddress] = useState('');
  const needsAddress = settings.data !== undefined && !settings.data.postal_address;

  const reloadCampaign = campaign.reload;
  const reloadStats = stats.reload;
  const reloadTimeline = timeline.reload;
  useEffect(() => {
    // Catch the last numbers when the status moves on (e.g. sending → sent).
    reloadStats();
    reloadTimeline();
    // Sending moves the numbers; a scheduled campaign starts on its own.
    if (status !== 'sending' && status !== 'scheduled') return;
    const timer = setInterval(() => {
      reloadCampaign();
      reloadStats();
      reloadTimeline();
    }, POLL_MS);
    return () => clearInterval(timer);
  }, [status, reloadCampaign, reloadStats, reloadTimeline]);

  if (campaign.error) return <ErrorNotice>{campaign.error.message}</ErrorNotice>;
  const data = campaign.data;
  if (!data) return <Loading />;

  return (
    <>
      <p className="breadcrumb">
        <Link to="/campaigns">Campaigns</Link>
      </p>
      <PageHeader
        title={data.name}
        description={
          <>
            <StatusBadge status={data.status} /> · “{data.subject}” from {data.from}
          </>
        }
        actions={
          <CampaignActions
            campaign={data}
            onSend={() => setConfirming(true)}
            onDelete={() => setDeleting(true)}
            onChanged={campaign.reload}
          />
        }
      />
      {data.paused_reason && <GuardPauseExplanation campaignId={data.id} />}
      {data.status !== 'draft' && (
        <section className="section" aria-labelledby="progress-title">
          <h2 id="progress-title">{PROGRESS_TITLES[data.status]}</h2>
          {data.status !== 'scheduled' && (
            <ProgressBar percent={data.progress.percent} label="Send progress" />
          )}
          <ProgressNote campaign={data} />
        </section>
      )}
      {stats.data && <CampaignReport stats={stats.data} />}
      {stats.data && stats.data.cancelled > 0 && (
        <p className="muted small">
          Never sent (cancelled): {formatCount(stats.data.cancelled)} recipients.
        </p>
      )}
      {timeline.data && (
        <section className="section" aria-labelledby="chart-title">
          <h2 id="chart-title">Over time</h2>
          <TimelineChart timeline={timeline.data} />
        </section>
      )}
      {(data.status === 'draft' || data.status === 'scheduled') && (
        <CampaignSummary campaign={data} />
      )}
      <CampaignPreview campaign={data} />
      <ConfirmDialog
        open={confirming}
        title={`Send “${data.name}”?`}
        confirmLabel={audience.data ? `Send to ${formatCount(audience.data.count)}` : 'Send'}
        ready={
          audience.data !== undefined &&
          settings.data !== undefined &&
          (!needsAddress || postalAddress.trim() !== '')
        }
        onClose={() => setConfirming(false)}
        onConfirm={async () => {
          if (needsAddress) {
            await api('/account/settings', {
              method: 'PATCH',
              body: { postal_address: postalAddress },
            });
            settings.reload();
          }
          await api(`${path}/send`, { method: 'POST' });
          campaign.reload();
        }}
      >
        {audience.error && <ErrorNotice>{audience.error.message}</ErrorNotice>}
        {!audience.data && !audience.error && <Loading label="Counting recipients…" />}
        {audience.data && (
          <p data-testid="send-count">
            This sends <strong>“{data.subject}”</strong> to{' '}
            <strong>
              {formatCount(audience.data.count)}{' '}
              {audience.data.count === 1 ? 'subscriber' : 'subscribers'}
            </strong>{' '}
            {audience.data.segment ? (
              <>in the segment “{audience.data.segment.name}”</>
            ) : (
              'on your list'
            )}{' '}
            now. Only subscribed addresses that are not on the suppression list receive it; erased
            identities are skipped. You can pause or cancel it while it sends; what has gone out
            cannot be called back.
          </p>
        )}
        {needsAddress && (
          <TextAreaField
            label="Your postal address"
            name="postal_address"
            rows={3}
            maxLength={500}
            required
            value={postalAddress}
            onChange={(event) => setPostalAddress(event.target.value)}
            hint={<>{POSTAL_ADDRESS_HINT} Asked once; change it later in Settings.</>}
          />
        )}
      </ConfirmDialog>
      <ConfirmDialog
        open={deleting}
        title={`Delete “${data.name}”?`}
        confirmLabel="Delete draft"
        danger
        onClose={() => setDeleting(false)}
        onConfirm={async () => {
          await api(path, { method: 'DELETE' });
          void navigate('/campaigns');
        }}
      >
        <p>The draft is removed. Its template and segment stay.</p>
      </ConfirmDialog>
    </>
  );
}

const PROGRESS_TITLES: Record<Campaign['status'], string> = {
  draft: 'Draft',
  scheduled: 'Scheduled',
  sending: 'Sending',
  paused: 'Paused',
  sent: 'Sent',
  cancelled: 'Cancelled',
};

function CampaignSummary({ campaign }: { campaign: Campaign }) {
  const template = useApi<Template>(
    campaign.template_id ? `/templates/${campaign.template_id}` : null,
  );
  const segment = useApi<Segment>(campaign.segment_id ? `/segments/${campaign.segment_id}` : null);
  return (
    <section className="section" aria-labelledby="summary-title">
      <h2 id="summary-title">Ready to send</h2>
      <dl className="details">
        <div className="details-row">
          <dt>Template</dt>
          <dd>
            {template.data ? (
              <Link to={`/templates/${template.data.id}`}>{template.data.name}</Link>
            ) : (
              '—'
            )}
          </dd>
        </div>
        <div className="details-row">
          <dt>Audience</dt>
          <dd>
            {segment.data ? (
              <>
                <Link to={`/segments/${segment.data.id}`}>{segment.data.name}</Link> (
                {formatCount(segment.data.count ?? 0)} matching)
              </>
            ) : (
              'All subscribers'
            )}
          </dd>
        </div>
        <div className="details-row">
          <dt>Subject</dt>
          <dd>{campaign.subject}</dd>
        </div>
        <div className="details-row">
          <dt>From</dt>
          <dd>{campaign.from}</dd>
        </div>
        <div className="details-row">
          <dt>Send pace</dt>
          <dd>
            {campaign.rate_per_minute
              ? `At most ${formatCount(campaign.rate_per_minute)} a minute`
              : 'As fast as allowed'}
          </dd>
        </div>
      </dl>
    </section>
  );
}

export function ProgressBar({
  percent,
  label,
  small,
}: {
  percent: number;
  label: string;
  small?: boolean;
}) {
  const value = Math.max(0, Math.min(100, percent));
  return (
    <div
      className={small ? 'progress progress-small' : 'progress'}
      role="progressbar"
      aria-label={label}
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={value}
      aria-valuetext={`${value}%`}
    >
      <div className="progress-fill" style={{ width: `${value}%` }} />
    </div>
  );
}
