import { useState } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import { query } from '../api/client';
import { useApi, useDebounced } from '../api/hooks';
import type { LoggedMessage, MessageEvent, Page } from '../api/types';
import { PagedTable } from '../ui/DataTable';
import { Definitions } from '../ui/Definitions';
import { formatDateTime } from '../ui/format';
import { EmptyState, ErrorNotice, Loading } from '../ui/Notice';
import { PageHeader } from '../ui/PageHeader';
import { useCursorPager } from '../ui/Pager';
import { StatusBadge } from './KeysPage';

const PAGE_SIZE = 50;

const STATUSES = [
  'queued',
  'sent',
  'delivered',
  'deferred',
  'bounced',
  'complained',
  'failed',
  'suppressed',
];
const SOURCES: Record<string, string> = {
  campaign: 'Campaign',
  transactional: 'Transactional',
  automation: 'Automation',
  test: 'Test send',
};

/** What each event means, in words. */
const EVENTS: Record<string, string> = {
  queued: 'Queued',
  sent: 'Handed to the relay',
  delivered: 'Delivered',
  deferred: 'Deferred (refused for now, will retry)',
  bounced: 'Bounced',
  complained: 'Marked as spam',
  opened: 'Opened',
  clicked: 'Clicked',
  unsubscribed: 'Unsubscribed',
  failed: 'Failed',
};

/** A recipient search is an exact address: the log finds it by hash, never by a part of it. */
const looksLikeEmail = (value: string) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value);

/**
 * Activity: the message log. Every message Herald sent, newest first, searched by recipient
 * and filtered by status and source (the filters live in the URL, so the campaign report, a
 * subscriber's page and the Overview link straight to a filtered view).
 */
export function ActivityPage() {
  const [params, setParams] = useSearchParams();
  const [search, setSearch] = useState(params.get('recipient') ?? '');
  const typed = useDebounced(search.trim(), 300);
  const recipient = looksLikeEmail(typed) ? typed : '';
  const status = params.get('status') ?? '';
  const source = params.get('source') ?? '';
  const campaignId = params.get('campaign_id') ?? '';
  const filters = { recipient, status, source, campaign_id: campaignId };
  const pager = useCursorPager(JSON.stringify(filters));
  const page = useApi<Page<LoggedMessage>>(
    `/messages${query({ ...filters, cursor: pager.cursor, limit: PAGE_SIZE })}`,
  );
  const setFilter = (name: string, value: string) => {
    const next = new URLSearchParams(params);
    if (value) next.set(name, value);
    else next.delete(name);
    setParams(next, { replace: true });
  };

  return (
    <>
      <PageHeader
        title="Activity"
        description="Every message Herald sent (campaigns, transactional, automations, tests) and what happened to it."
      />
      <div className="toolbar" role="search">
        <label htmlFor="activity-recipient" className="visually-hidden">
          Recipient
        </label>
        <input
          id="activity-recipient"
          type="search"
          className="search"
          placeholder="Recipient’s email address…"
          value={search}
          onChange={(event) => {
            setSearch(event.target.value);
            const value = event.target.value.trim();
            if (!value || looksLikeEmail(value)) setFilter('recipient', value);
          }}
        />
        <label htmlFor="activity-status" className="visually-hidden">
          Status
        </label>
        <select
          id="activity-status"
          value={status}
          onChange={(event) => setFilter('status', event.target.value)}
        >
          <option value="">Any status</option>
          {STATUSES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
        <label htmlFor="activity-source" className="visually-hidden">
          Source
        </label>
        <select
          id="activity-source"
          value={source}
          onChange={(event) => setFilter('source', event.target.value)}
        >
          <option value="">Any source</option>
          {Object.entries(SOURCES).map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
        {campaignId && (
          <button type="button" className="button" onClick={() => setFilter('campaign_id', '')}>
            One campaign only ✕
          </button>
        )}
        {page.loading && <span className="spinner" role="status" aria-label="Searching" />}
      </div>
      {typed && !recipient && (
        <p className="muted">Type the whole address: the log finds a recipient by exact match.</p>
      )}
      <PagedTable
        list={page}
        pager={pager}
        empty={
          <EmptyState title={recipient ? `No message to ${recipient}` : 'No messages'}>
            <p>Messages are kept for the retention period (30 days unless configured).</p>
          </EmptyState>
        }
        caption="Messages"
        columns={['Recipient', 'Subject', 'Source', 'Status', 'Created']}
      >
        {(message) => (
          <tr key={message.id}>
            <td>
              <Link to={`/activity/${message.id}`} className="strong">
                {message.recipient ?? 'Erased recipient'}
              </Link>
            </td>
            <td>{message.subject ?? '—'}</td>
            <td>{SOURCES[message.source] ?? message.source}</td>
            <td>
              <StatusBadge status={message.status} />
            </td>
            <td className="nowrap">{formatDateTime(message.created_at)}</td>
          </tr>
        )}
      </PagedTable>
    </>
  );
}

/** One message: what it was, and its timeline with the SMTP replies. */
export function MessageDetailPage() {
  const { id = '' } = useParams();
  const message = useApi<LoggedMessage>(`/messages/${encodeURIComponent(id)}`);
  const back = (
    <p className="breadcrumb">
      <Link to="/activity">Activity</Link>
    </p>
  );
  if (message.error) {
    return (
      <>
        {back}
        <PageHeader title="Message" />
        <ErrorNotice>{message.error.message}</ErrorNotice>
      </>
    );
  }
  const data = message.data;
  if (!data) return <Loading />;
  return (
    <>
      {back}
      <PageHeader
        title={data.subject ?? 'Message'}
        description={
          <>
            {SOURCES[data.source] ?? data.source} to {data.recipient ?? 'an erased recipient'} ·{' '}
            <StatusBadge status={data.status} />
          </>
        }
      />
      <Definitions
        className="details"
        itemClassName="details-row"
        items={[
          ['Recipient', data.recipient ?? 'Erased'],
          ['From', data.from],
          ['Message-ID', <code key="mid">{data.message_id ?? '—'}</code>],
          // An automation's message goes through a hidden campaign of its send step, which
          // has no page of its own: the automation is where it belongs.
          data.source === 'automation' && data.automation_id
            ? [
                'Automation',
                <Link key="automation" to={`/automations/${data.automation_id}`}>
                  Open the automation
                </Link>,
              ]
            : [
                'Campaign',
                data.campaign_id ? (
                  <Link key="campaign" to={`/campaigns/${data.campaign_id}`}>
                    Open the campaign
                  </Link>
                ) : (
                  '—'
                ),
              ],
          [
            'Subscriber',
            data.subscriber_id ? (
              <Link key="subscriber" to={`/subscribers/${data.subscriber_id}`}>
                Open the subscriber
              </Link>
            ) : (
              '—'
            ),
          ],
          ['Created', formatDateTime(data.created_at)],
        ]}
      />
      <section className="section" aria-labelledby="timeline-title">
        <h2 id="timeline-title">Timeline</h2>
        <ol className="message-timeline">
          {(data.events ?? []).map((event, index) => (
            <TimelineEvent key={index} event={event} />
          ))}
        </ol>
      </section>
    </>
  );
}

function TimelineEvent({ event }: { event: MessageEvent }) {
  return (
    <li className={`message-event message-event-${event.type}`}>
      <span className="message-event-type">{EVENTS[event.type] ?? event.type}</span>{' '}
      <time dateTime={event.at}>{formatDateTime(event.at)}</time>
      {event.smtp_code !== undefined && (
        <span className="smtp-code"> · SMTP {event.smtp_code}</span>
      )}
      {event.machine && <span> · by a machine (scanner or privacy proxy)</span>}
      {event.url && (
        <div>
          <a href={event.url} rel="noreferrer noopener" target="_blank">
            {event.url}
          </a>
        </div>
      )}
      {event.reason && <pre className="smtp-reply">{event.reason}</pre>}
    </li>
  );
}
