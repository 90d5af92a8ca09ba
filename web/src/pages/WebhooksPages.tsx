import { useEffect, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { api, query } from '../api/client';
import { useApi } from '../api/hooks';
import type { CreatedWebhookEndpoint, Page, WebhookDelivery, WebhookEndpoint } from '../api/types';
import { ConfirmDialog } from '../ui/ConfirmDialog';
import { CopyButton } from '../ui/CopyButton';
import { PagedTable } from '../ui/DataTable';
import { Definitions } from '../ui/Definitions';
import { Dialog } from '../ui/Dialog';
import { TextField } from '../ui/Field';
import { formatAgo, formatDate, formatDateTime } from '../ui/format';
import { EmptyState, ErrorNotice, Loading, WarningNotice } from '../ui/Notice';
import { PageHeader } from '../ui/PageHeader';
import { useCursorPager } from '../ui/Pager';
import { useFormSubmit } from '../ui/useFormSubmit';
import { StatusBadge } from './KeysPage';

/** Every event an endpoint can receive, grouped as the form shows them. */
const EVENT_GROUPS: { title: string; events: [string, string][] }[] = [
  {
    title: 'Email',
    events: [
      ['email.sent', 'The relay answered for a message'],
      ['email.delivered', 'The relay accepted it (250)'],
      ['email.bounced', 'Refused, or a bounce came back'],
      ['email.complained', 'Reported as spam'],
      ['email.opened', 'Opened (machine opens flagged)'],
      ['email.clicked', 'A link was clicked'],
    ],
  },
  {
    title: 'Subscribers',
    events: [
      ['subscriber.created', 'Created'],
      ['subscriber.updated', 'Profile changed'],
      ['subscriber.unsubscribed', 'Unsubscribed'],
      ['subscriber.erased', 'Erased (only a hash of the address)'],
    ],
  },
  {
    title: 'Campaigns',
    events: [
      ['campaign.sending', 'Started sending'],
      ['campaign.sent', 'Finished sending'],
    ],
  },
];

/** Webhooks: endpoints that receive Herald's events, signed per Standard Webhooks. */
export function WebhooksPage() {
  const pager = useCursorPager('webhooks');
  const list = useApi<Page<WebhookEndpoint>>(`/webhooks${query({ cursor: pager.cursor })}`);
  const [creating, setCreating] = useState(false);

  return (
    <>
      <PageHeader
        title="Webhooks"
        description="Herald posts events to your endpoints as they happen, signed so you can verify them (Standard Webhooks), retried for a day when your endpoint is down."
        actions={
          <button type="button" className="button button-primary" onClick={() => setCreating(true)}>
            Add endpoint
          </button>
        }
      />
      <PagedTable
        list={list}
        pager={pager}
        empty={
          <EmptyState title="No endpoints yet">
            <p>
              Add an endpoint to receive deliveries, bounces, opens and more in your own systems.
            </p>
          </EmptyState>
        }
        caption="Webhook endpoints"
        columns={['Endpoint', 'Events', 'Status', 'Created']}
      >
        {(endpoint) => (
          <tr key={endpoint.id}>
            <td className="link-url">
              <Link to={`/webhooks/${endpoint.id}`}>{endpoint.url}</Link>
              {endpoint.description && <div className="muted small">{endpoint.description}</div>}
            </td>
            <td>{endpoint.events.length === 12 ? 'All events' : endpoint.events.join(', ')}</td>
            <td>
              <StatusBadge status={endpoint.enabled ? 'active' : 'disabled'} />
            </td>
            <td className="nowrap">{formatDate(endpoint.created_at)}</td>
          </tr>
        )}
      </PagedTable>
      {creating && (
        <CreateWebhookDialog
          onClose={() => {
            setCreating(false);
            list.reload();
          }}
        />
      )}
    </>
  );
}

function CreateWebhookDialog({ onClose }: { onClose(): void }) {
  const [created, setCreated] = useState<CreatedWebhookEndpoint>();
  const { failure, busy, submit } = useFormSubmit(async (form) => {
    const raw = form.get('description');
    const description = typeof raw === 'string' ? raw.trim() : '';
    setCreated(
      await api<CreatedWebhookEndpoint>('/webhooks', {
        method: 'POST',
        body: {
          url: form.get('url'),
          events: form.getAll('events'),
          ...(description ? { description } : {}),
        },
      }),
    );
  });

  if (created) {
    return (
      <Dialog
        open
        wide
        title="Your endpoint's signing secret"
        onClose={onClose}
        footer={
          <button type="button" className="button button-primary" onClick={onClose}>
            I have stored it safely
          </button>
        }
      >
        <WarningNotice>
          <strong>Copy this secret now: you will not see it again.</strong> Your endpoint uses it to
          verify that a request comes from Herald.
        </WarningNotice>
        <div className="secret secret-once">
          <label className="secret-label" htmlFor="webhook-secret">
            Signing secret for {created.url}
          </label>
          <div className="secret-row">
            <input
              id="webhook-secret"
              className="secret-value"
              readOnly
              value={created.secret}
              onFocus={(event) => event.currentTarget.select()}
            />
            <CopyButton text={created.secret} />
          </div>
          <p className="field-hint">
            Verify each request with the Standard Webhooks library:{' '}
            <code>new Webhook(secret).verify(body, headers)</code>.
          </p>
        </div>
      </Dialog>
    );
  }

  const eventsError = failure?.fieldMessage('events');
  return (
    <Dialog open wide title="Add webhook endpoint" onClose={onClose}>
      <form onSubmit={(event) => void submit(event)} noValidate>
        <TextField
          label="URL"
          name="url"
          type="url"
          required
          placeholder="https://example.com/herald-events"
          hint="Herald posts JSON here. It must be reachable from the internet."
          error={failure?.fieldMessage('url')}
        />
        <TextField
          label="Description"
          name="description"
          maxLength={255}
          placeholder="e.g. CRM sync"
          error={failure?.fieldMessage('description')}
        />
        <fieldset className="scopes" aria-describedby={eventsError ? 'events-error' : undefined}>
          <legend>Events</legend>
          <div className="scope-groups">
            {EVENT_GROUPS.map((group) => (
              <fieldset key={group.title} className="scope-group">
                <legend className="scope-group-title">{group.title}</legend>
                {group.events.map(([event, meaning]) => (
                  <label key={event} className="check">
                    <input type="checkbox" name="events" value={event} defaultChecked />
                    <span>
                      <code>{event}</code>
                      <span className="check-hint">{meaning}</span>
                    </span>
                  </label>
                ))}
              </fieldset>
            ))}
          </div>
          {eventsError && (
            <p className="field-error" id="events-error">
              {eventsError}
            </p>
          )}
        </fieldset>
        {failure && failure.details.length === 0 && <ErrorNotice>{failure.message}</ErrorNotice>}
        <div className="form-actions">
          <button type="button" className="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="button button-primary" disabled={busy}>
            {busy ? 'Adding…' : 'Add endpoint'}
          </button>
        </div>
      </form>
    </Dialog>
  );
}

/** Refresh the delivery log this often while something is still pending. */
const POLL_MS = 3000;

/** One endpoint: what it receives, why it was disabled, and its delivery log with retries. */
export function WebhookDetailPage() {
  const { id = '' } = useParams();
  const navigate = useNavigate();
  const path = `/webhooks/${encodeURIComponent(id)}`;
  const endpoint = useApi<WebhookEndpoint>(path);
  const pager = useCursorPager(`deliveries-${id}`);
  const log = useApi<Page<WebhookDelivery>>(`${path}/deliveries${query({ cursor: pager.cursor })}`);
  const [deleting, setDeleting] = useState(false);
  const [actionError, setActionError] = useState<string>();

  const reloadLog = log.reload;
  const pending = log.data?.data.some((delivery) => delivery.status === 'pending') ?? false;
  useEffect(() => {
    if (!pending) return;
    const timer = setInterval(reloadLog, POLL_MS);
    return () => clearInterval(timer);
  }, [pending, reloadLog]);

  if (endpoint.error) return <ErrorNotice>{endpoint.error.message}</ErrorNotice>;
  const data = endpoint.data;
  if (!data) return <Loading />;

  const setEnabled = async (enabled: boolean) => {
    setActionError(undefined);
    try {
      await api(path, { method: 'PATCH', body: { enabled } });
      endpoint.reload();
    } catch (error) {
      setActionError(error instanceof Error ? error.message : String(error));
    }
  };
  const retry = async (delivery: WebhookDelivery) => {
    setActionError(undefined);
    try {
      await api(`${path}/deliveries/${delivery.id}/retry`, { method: 'POST' });
      log.reload();
    } catch (error) {
      setActionError(error instanceof Error ? error.message : String(error));
    }
  };

  return (
    <>
      <p className="breadcrumb">
        <Link to="/webhooks">Webhooks</Link>
      </p>
      <PageHeader
        title={data.description ?? 'Webhook endpoint'}
        description={<span className="link-url">{data.url}</span>}
        actions={
          <>
            <button
              type="button"
              className="button button-danger-ghost"
              onClick={() => setDeleting(true)}
            >
              Delete
            </button>
            <button type="button" className="button" onClick={() => void setEnabled(!data.enabled)}>
              {data.enabled ? 'Disable' : 'Enable'}
            </button>
          </>
        }
      />
      {!data.enabled && (
        <WarningNotice>
          <strong>This endpoint is disabled.</strong>{' '}
          <span data-testid="disabled-reason">{data.disabled_reason ?? 'Disabled.'}</span> It
          receives no events until you enable it again.
        </WarningNotice>
      )}
      {actionError && <ErrorNotice>{actionError}</ErrorNotice>}
      <section className="section" aria-labelledby="endpoint-title">
        <h2 id="endpoint-title">Endpoint</h2>
        <Definitions
          className="details"
          itemClassName="details-row"
          items={[
            ['Status', <StatusBadge key="s" status={data.enabled ? 'active' : 'disabled'} />],
            ['Events', data.events.join(', ')],
            ['Created', formatDateTime(data.created_at)],
          ]}
        />
      </section>
      <section className="section" aria-labelledby="log-title">
        <h2 id="log-title">Deliveries</h2>
        <PagedTable
          list={log}
          pager={pager}
          empty={
            <EmptyState title="No deliveries yet">
              <p>Events this endpoint subscribes to appear here as they are sent.</p>
            </EmptyState>
          }
          caption="Deliveries, newest first"
          columns={[
            'Event',
            'Status',
            'Attempts',
            'Response',
            'Latency',
            'Next attempt',
            'Created',
            <span className="visually-hidden">Actions</span>,
          ]}
        >
          {(delivery) => (
            <tr key={delivery.id} data-testid="delivery-row">
              <td>
                <code>{delivery.type}</code>
                <div className="muted small" title="webhook-id">
                  {delivery.event_id}
                </div>
              </td>
              <td>
                <StatusBadge status={delivery.status} />
              </td>
              <td className="numeric">{delivery.attempts}</td>
              <td>
                {delivery.response_status ?? '—'}
                {delivery.error && <div className="muted small">{delivery.error}</div>}
              </td>
              <td className="nowrap">
                {delivery.latency_ms === null ? '—' : `${delivery.latency_ms} ms`}
              </td>
              <td className="nowrap">
                {delivery.next_attempt_at ? formatDateTime(delivery.next_attempt_at) : '—'}
              </td>
              <td className="nowrap">{formatAgo(delivery.created_at)}</td>
              <td className="cell-actions">
                <button
                  type="button"
                  className="button button-small"
                  onClick={() => void retry(delivery)}
                  aria-label={`Retry ${delivery.type} ${delivery.event_id}`}
                >
                  Retry
                </button>
              </td>
            </tr>
          )}
        </PagedTable>
      </section>
      <ConfirmDialog
        open={deleting}
        title="Delete this endpoint?"
        confirmLabel="Delete endpoint"
        danger
        onClose={() => setDeleting(false)}
        onConfirm={async () => {
          await api(path, { method: 'DELETE' });
          await navigate('/webhooks');
        }}
      >
        <p>Its pending deliveries are dropped and it receives no more events.</p>
      </ConfirmDialog>
    </>
  );
}
