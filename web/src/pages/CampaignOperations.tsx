import { useState } from 'react';
import { useNavigate } from 'react-router';
import { api, query } from '../api/client';
import { toFailure, useApi, useDebounced, useLiveResult } from '../api/hooks';
import type { Campaign, Page, Rendered, Subscriber, TestSendResult } from '../api/types';
import { useSession } from '../session';
import { ConfirmDialog } from '../ui/ConfirmDialog';
import { Dialog } from '../ui/Dialog';
import { TextAreaField, TextField } from '../ui/Field';
import { formatCount, formatDateTime } from '../ui/format';
import { FormFailure } from '../ui/FormFailure';
import {
  browserTimeZone,
  formatInZone,
  localInputValue,
  timeZones,
  wallTimeInZone,
} from '../ui/timezones';
import { useFormSubmit } from '../ui/useFormSubmit';
import './campaign-operations.css';

type Operation = 'schedule' | 'test' | 'cancel';

/**
 * The campaign page's buttons for what its state allows: schedule, send, test, duplicate and
 * delete a draft; unschedule or send now when scheduled; pause and cancel while sending;
 * resume and cancel when paused; test and duplicate always.
 */
export function CampaignActions({
  campaign,
  onSend,
  onDelete,
  onChanged,
}: {
  campaign: Campaign;
  /** Opens the page's send confirmation. */
  onSend(): void;
  /** Opens the page's delete confirmation. */
  onDelete(): void;
  /** The campaign changed state: reload it. */
  onChanged(): void;
}) {
  const navigate = useNavigate();
  const [open, setOpen] = useState<Operation>();
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string>();
  const path = `/campaigns/${encodeURIComponent(campaign.id)}`;
  const { status } = campaign;

  const run = async (action: () => Promise<void>) => {
    setBusy(true);
    setFailure(undefined);
    try {
      await action();
    } catch (error) {
      setFailure(toFailure(error).explain().join(' '));
    } finally {
      setBusy(false);
    }
  };
  const post = (operation: string) =>
    run(async () => {
      await api(`${path}/${operation}`, { method: 'POST' });
      onChanged();
    });
  const duplicate = () =>
    run(async () => {
      const copy = await api<Campaign>(`${path}/duplicate`, { method: 'POST' });
      void navigate(`/campaigns/${copy.id}`);
    });
  const unschedule = () =>
    run(async () => {
      await api(`${path}/schedule`, { method: 'DELETE' });
      onChanged();
    });

  const button = (label: string, onClick: () => void, kind = 'button') => (
    <button key={label} type="button" className={kind} disabled={busy} onClick={onClick}>
      {label}
    </button>
  );
  const buttons = [];
  if (status === 'draft')
    buttons.push(button('Delete draft', onDelete, 'button button-danger-ghost'));
  if (status === 'scheduled') buttons.push(button('Unschedule', () => void unschedule()));
  if (status === 'sending' || status === 'paused' || status === 'scheduled') {
    buttons.push(button('Cancel campaign…', () => setOpen('cancel'), 'button button-danger-ghost'));
  }
  if (status !== 'sending' && status !== 'paused') {
    buttons.push(button('Duplicate', () => void duplicate()));
    buttons.push(button('Send test…', () => setOpen('test')));
  }
  if (status === 'draft') buttons.push(button('Schedule…', () => setOpen('schedule')));
  if (status === 'scheduled') buttons.push(button('Reschedule…', () => setOpen('schedule')));
  if (status === 'draft') buttons.push(button('Send…', onSend, 'button button-primary'));
  if (status === 'scheduled') buttons.push(button('Send now…', onSend, 'button button-primary'));
  if (status === 'sending') {
    buttons.push(button('Pause', () => void post('pause'), 'button button-primary'));
  }
  if (status === 'paused') {
    buttons.push(button('Resume', () => void post('resume'), 'button button-primary'));
  }

  return (
    <>
      {buttons}
      {failure && (
        <p className="field-error operations-error" role="alert">
          {failure}
        </p>
      )}
      {open === 'schedule' && (
        <ScheduleDialog
          campaign={campaign}
          onClose={() => setOpen(undefined)}
          onScheduled={() => {
            setOpen(undefined);
            onChanged();
          }}
        />
      )}
      {open === 'test' && <TestSendDialog campaign={campaign} onClose={() => setOpen(undefined)} />}
      <ConfirmDialog
        open={open === 'cancel'}
        title={`Cancel “${campaign.name}”?`}
        confirmLabel="Cancel campaign"
        danger
        onClose={() => setOpen(undefined)}
        onConfirm={async () => {
          await api(`${path}/cancel`, { method: 'POST' });
          onChanged();
        }}
      >
        <p>
          {status === 'scheduled'
            ? 'It will not be sent.'
            : 'Nobody who has not received it yet will. Messages already on their way finish.'}{' '}
          This cannot be undone; a duplicate can be sent later.
        </p>
      </ConfirmDialog>
    </>
  );
}

/** When to send, in a time zone of the person's choosing (their browser's by default). */
function ScheduleDialog({
  campaign,
  onClose,
  onScheduled,
}: {
  campaign: Campaign;
  onClose(): void;
  onScheduled(): void;
}) {
  const [zone, setZone] = useState(browserTimeZone());
  const [local, setLocal] = useState(() =>
    campaign.send_at
      ? localInputValue(new Date(campaign.send_at), zone)
      : localInputValue(new Date(Date.now() + 3600_000), zone),
  );
  const sendAt = wallTimeInZone(local, zone);
  const { failure, busy, submit } = useFormSubmit(async () => {
    await api(`/campaigns/${encodeURIComponent(campaign.id)}/schedule`, {
      method: 'POST',
      body: { send_at: sendAt },
    });
    onScheduled();
  });
  const here = browserTimeZone();
  return (
    <Dialog open title={`Schedule “${campaign.name}”`} onClose={onClose}>
      <form onSubmit={(event) => void submit(event)} noValidate>
        <TextField
          label="Send at"
          name="send_at"
          type="datetime-local"
          required
          value={local}
          onChange={(event) => setLocal(event.target.value)}
          error={failure?.fieldMessage('send_at')}
        />
        <div className="field">
          <label htmlFor="schedule-zone">Time zone</label>
          <select id="schedule-zone" value={zone} onChange={(event) => setZone(event.target.value)}>
            {timeZones().map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </div>
        {sendAt && (
          <p className="muted small" data-testid="schedule-summary">
            Sends at {formatInZone(sendAt, zone)}
            {zone !== here && <>, which is {formatInZone(sendAt, here)} for you</>}.
          </p>
        )}
        <FormFailure failure={failure} fields={['send_at']} />
        <div className="form-actions">
          <button type="button" className="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="button button-primary" disabled={busy || !sendAt}>
            {busy ? 'Scheduling…' : 'Schedule'}
          </button>
        </div>
      </form>
    </Dialog>
  );
}

/** Up to five addresses get the real message now, marked as a test, counted nowhere. */
function TestSendDialog({ campaign, onClose }: { campaign: Campaign; onClose(): void }) {
  const { session } = useSession();
  const [results, setResults] = useState<TestSendResult[]>();
  const { failure, busy, submit } = useFormSubmit(async (form) => {
    const typed = form.get('emails');
    const emails = (typeof typed === 'string' ? typed : '').split(/[\s,;]+/).filter(Boolean);
    const answer = await api<{ results: TestSendResult[] }>(
      `/campaigns/${encodeURIComponent(campaign.id)}/test`,
      { method: 'POST', body: { emails } },
    );
    setResults(answer.results);
  });
  return (
    <Dialog open title="Send a test" onClose={onClose}>
      <form onSubmit={(event) => void submit(event)} noValidate>
        <TextAreaField
          label="Send to"
          name="emails"
          rows={3}
          required
          defaultValue={session?.user?.email ?? ''}
          hint="Up to 5 addresses, separated by commas or new lines. Each gets the real message, its subject starting with “[Test]”, with the data of the subscriber who has that address. Tests count in no statistics."
          error={failure?.fieldMessage('emails')}
        />
        <FormFailure failure={failure} fields={['emails']} />
        {results && (
          <ul className="test-results" data-testid="test-results">
            {results.map((result) => (
              <li key={result.email}>
                {result.status === 'sent' ? '✓ Sent to ' : '✗ Not sent to '}
                <strong>{result.email}</strong>
                {result.error && <span className="muted"> — {result.error}</span>}
              </li>
            ))}
          </ul>
        )}
        <div className="form-actions">
          <button type="button" className="button" onClick={onClose}>
            Close
          </button>
          <button type="submit" className="button button-primary" disabled={busy}>
            {busy ? 'Sending…' : 'Send test'}
          </button>
        </div>
      </form>
    </Dialog>
  );
}

/** What the progress section says besides the bar: the schedule, the pace, the outcome. */
export function ProgressNote({ campaign }: { campaign: Campaign }) {
  const { progress, status } = campaign;
  const zone = browserTimeZone();
  if (status === 'scheduled' && campaign.send_at) {
    return (
      <p className="muted" data-testid="progress-text">
        Scheduled for {formatInZone(campaign.send_at, zone)}
        {campaign.rate_per_minute && (
          <> · at most {formatCount(campaign.rate_per_minute)} a minute</>
        )}
        .
      </p>
    );
  }
  return (
    <p className="muted" data-testid="progress-text">
      {formatCount(progress.sent)} of {formatCount(progress.recipients)} messages sent ·{' '}
      {progress.percent}% · started {formatDateTime(campaign.started_at)}
      {status === 'sending' && progress.expected_finish_at && (
        <> · expected to finish at {formatDateTime(progress.expected_finish_at)}</>
      )}
      {status === 'paused' && <> · paused: nobody else gets it until you resume</>}
      {status === 'cancelled' && (
        <>
          {' '}
          · cancelled {formatDateTime(campaign.cancelled_at)}: {formatCount(progress.cancelled)}{' '}
          never sent
        </>
      )}
      {campaign.finished_at && <> · finished {formatDateTime(campaign.finished_at)}</>}
      {campaign.rate_per_minute && <> · at most {formatCount(campaign.rate_per_minute)} a minute</>}
    </p>
  );
}

const WIDTHS = { desktop: 'Desktop', mobile: 'Mobile' } as const;

/**
 * The campaign as a subscriber will get it, rendered by the server with the send's own
 * renderer and footer, at a desktop or a phone's width, with one subscriber's data.
 */
export function CampaignPreview({ campaign }: { campaign: Campaign }) {
  const [width, setWidth] = useState<keyof typeof WIDTHS>('desktop');
  const [format, setFormat] = useState<'html' | 'text'>('html');
  const [asEmail, setAsEmail] = useState('');
  const email = useDebounced(asEmail.trim().toLowerCase(), 300);
  const found = useApi<Page<Subscriber>>(
    email ? `/subscribers${query({ q: email, limit: 5 })}` : null,
  );
  const subscriber = email
    ? found.data?.data.find((candidate) => candidate.email.toLowerCase() === email)
    : undefined;
  // Rendered again when the campaign changes (an edit, the send freezing its content).
  const result = useLiveResult<Rendered>(
    `/campaigns/${encodeURIComponent(campaign.id)}/preview${query({ at: campaign.updated_at })}`,
    { subscriber_id: subscriber?.id },
  );
  const rendered = result.data;
  const renderError = result.error?.explain().join('\n');
  return (
    <section className="section campaign-preview" aria-labelledby="campaign-preview-title">
      <div className="preview-head">
        <h2 id="campaign-preview-title">Preview</h2>
        <div className="preview-controls">
          <div className="tabs" role="group" aria-label="Preview width">
            {(Object.keys(WIDTHS) as (keyof typeof WIDTHS)[]).map((key) => (
              <button
                key={key}
                type="button"
                aria-pressed={width === key}
                className={width === key ? 'tab tab-active' : 'tab'}
                onClick={() => setWidth(key)}
              >
                {WIDTHS[key]}
              </button>
            ))}
          </div>
          <div className="tabs" role="group" aria-label="Preview format">
            {(['html', 'text'] as const).map((key) => (
              <button
                key={key}
                type="button"
                aria-pressed={format === key}
                className={format === key ? 'tab tab-active' : 'tab'}
                onClick={() => setFormat(key)}
              >
                {key === 'html' ? 'HTML' : 'Text'}
              </button>
            ))}
          </div>
        </div>
      </div>
      <TextField
        label="Preview as subscriber"
        type="email"
        placeholder="Email of one of your subscribers"
        value={asEmail}
        onChange={(event) => setAsEmail(event.target.value)}
        hint={
          subscriber
            ? `Showing ${subscriber.email}’s own data.`
            : email && !found.loading
              ? 'No subscriber has this email: merge fields show empty.'
              : 'Merge fields show empty until you choose a subscriber.'
        }
      />
      {renderError && (
        <div className="notice notice-error" role="alert">
          <pre className="pre-wrap">{renderError}</pre>
        </div>
      )}
      {rendered && (
        <div className="preview-body">
          <p className="preview-subject">
            <span className="muted">Subject:</span>{' '}
            <strong data-testid="campaign-preview-subject">{rendered.subject}</strong>
          </p>
          <div className={`preview-viewport preview-${width}`} data-testid="preview-viewport">
            {format === 'html' ? (
              rendered.html ? (
                // Sandboxed without scripts: the email's HTML can style itself but run nothing.
                <iframe
                  title={`Campaign email at ${WIDTHS[width].toLowerCase()} width`}
                  className="preview-frame"
                  sandbox=""
                  srcDoc={rendered.html}
                />
              ) : (
                <p className="muted">No HTML body.</p>
              )
            ) : (
              <pre className="preview-text">{rendered.text ?? 'No text body.'}</pre>
            )}
          </div>
        </div>
      )}
    </section>
  );
}
