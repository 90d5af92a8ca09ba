import { FormEvent, ReactNode, useState } from 'react';
import { Link, useParams } from 'react-router';
import { api, ApiFailure } from '../api/client';
import { toFailure, useApi } from '../api/hooks';
import type { ErasureReceipt, Subscriber } from '../api/types';
import { ConfirmDialog } from '../ui/ConfirmDialog';
import { Definitions } from '../ui/Definitions';
import { TextAreaField, TextField } from '../ui/Field';
import { formatCents, formatCount, formatDate, formatDateTime, fullName } from '../ui/format';
import { ErrorNotice, InfoNotice, Loading } from '../ui/Notice';
import { FormFailure } from '../ui/FormFailure';
import { PageHeader } from '../ui/PageHeader';
import { StatusBadge } from './KeysPage';

/** The plain text fields of a subscriber, in the order the detail page lists them. */
const TEXT_FIELDS: [keyof Subscriber, string][] = [
  ['email', 'Email'],
  ['first_name', 'First name'],
  ['last_name', 'Last name'],
  ['phone', 'Phone'],
  ['address1', 'Address line 1'],
  ['address2', 'Address line 2'],
  ['city', 'City'],
  ['state', 'State or region'],
  ['zip', 'Postcode'],
  ['country_code', 'Country code'],
  ['gender', 'Gender'],
  ['income_level', 'Income level'],
  ['membership_status', 'Membership status'],
  ['status', 'Status'],
  ['timezone', 'Time zone'],
];

export function SubscriberDetailPage() {
  const { id = '' } = useParams();
  const subscriber = useApi<Subscriber>(`/subscribers/${encodeURIComponent(id)}`);
  const [editing, setEditing] = useState(false);
  const [erasing, setErasing] = useState(false);
  const [erased, setErased] = useState<ErasureReceipt>();

  if (erased) {
    return (
      <>
        <PageHeader title="Identity erased" />
        <InfoNotice>
          The subscriber’s personal data has been deleted. Herald keeps only this keyed hash, so the
          address is never written to again:
          <br />
          <code className="hash">{erased.email_hash}</code>
        </InfoNotice>
        <p>
          <Link to="/subscribers">Back to subscribers</Link>
        </p>
      </>
    );
  }
  if (subscriber.error) {
    return (
      <>
        <PageHeader title="Subscriber" />
        <ErrorNotice>{subscriber.error.message}</ErrorNotice>
        <Link to="/subscribers">Back to subscribers</Link>
      </>
    );
  }
  const data = subscriber.data;
  if (!data) return <Loading />;

  return (
    <>
      <p className="breadcrumb">
        <Link to="/subscribers">Subscribers</Link>
      </p>
      <PageHeader
        title={data.email}
        description={
          <>
            {fullName(data) || 'No name'} · <StatusBadge status={data.status} /> · added{' '}
            {formatDate(data.created_at)}
          </>
        }
        actions={
          !editing && (
            <button type="button" className="button" onClick={() => setEditing(true)}>
              Edit
            </button>
          )
        }
      />
      <Statistics subscriber={data} />
      <p>
        <Link to={`/activity?recipient=${encodeURIComponent(data.email)}`}>
          Messages sent to {data.email}
        </Link>{' '}
        (Activity: campaigns, transactional mail and tests, with what happened to each).
      </p>
      {editing ? (
        <EditSubscriber
          subscriber={data}
          onDone={() => {
            setEditing(false);
            subscriber.reload();
          }}
        />
      ) : (
        <Profile subscriber={data} />
      )}
      <section className="danger-zone" aria-labelledby="danger-title">
        <h2 id="danger-title">Erase identity</h2>
        <p>
          For a data-protection request (“right to be forgotten”). Deletes this subscriber and their
          personal data everywhere Herald stores it, keeps only a keyed hash of the email, and
          refuses any later attempt to add or mail this address. It cannot be undone.
        </p>
        <button type="button" className="button button-danger" onClick={() => setErasing(true)}>
          Erase identity…
        </button>
      </section>
      <EraseDialog
        subscriber={data}
        open={erasing}
        onClose={() => setErasing(false)}
        onErased={setErased}
      />
    </>
  );
}

function Statistics({ subscriber }: { subscriber: Subscriber }) {
  const stats = subscriber.statistics;
  const tiles: [string, string][] = [
    ['Sent', formatCount(stats.sent)],
    ['Delivered', formatCount(stats.delivered)],
    ['Opens', formatCount(stats.opens)],
    ['Clicks', formatCount(stats.clicks)],
    ['Hard bounces', formatCount(stats.hard_bounces)],
    ['Soft bounces', formatCount(stats.soft_bounces)],
    ['Revenue', formatCents(stats.revenue_cents)],
  ];
  return (
    <section aria-labelledby="stats-title" className="section">
      <h2 id="stats-title">Statistics</h2>
      <Definitions className="tiles" itemClassName="tile" items={tiles} />
      <p className="muted">
        Last sent {formatDateTime(stats.last_sent_at)} · last opened{' '}
        {formatDateTime(stats.last_open_at)} · last clicked {formatDateTime(stats.last_click_at)}
      </p>
    </section>
  );
}

function Profile({ subscriber }: { subscriber: Subscriber }) {
  const rows: [string, ReactNode][] = [
    ...TEXT_FIELDS.map(([field, label]): [string, ReactNode] => [
      label,
      (subscriber[field] as string | null) || '—',
    ]),
    ['Birthdate', formatDate(subscriber.birthdate)],
    ['Interests', subscriber.interests.join(', ') || '—'],
    ['Tags', subscriber.tags.join(', ') || '—'],
    [
      'Social media',
      subscriber.social_media.map((item) => `${item.platform}: ${item.profile_id}`).join(', ') ||
        '—',
    ],
    [
      'Custom fields',
      Object.keys(subscriber.custom_fields).length ? (
        <pre className="json">{JSON.stringify(subscriber.custom_fields, null, 2)}</pre>
      ) : (
        '—'
      ),
    ],
    ['Id', <code key="id">{subscriber.id}</code>],
    ['Created', formatDateTime(subscriber.created_at)],
    ['Updated', formatDateTime(subscriber.updated_at)],
  ];
  return (
    <section aria-labelledby="profile-title" className="section">
      <h2 id="profile-title">Profile</h2>
      <Definitions className="details" itemClassName="details-row" items={rows} />
    </section>
  );
}

/** Every field the edit form shows, each with its own error. */
const EDITED_FIELDS = [
  ...TEXT_FIELDS.map(([field]) => field as string),
  'birthdate',
  'tags',
  'interests',
  'custom_fields',
];

function EditSubscriber({ subscriber, onDone }: { subscriber: Subscriber; onDone(): void }) {
  const [failure, setFailure] = useState<ApiFailure>();
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const value = (name: string) => (form.get(name) as string).trim();
    const body: Record<string, unknown> = {};
    for (const [field] of TEXT_FIELDS) body[field] = value(field) || null;
    body.email = value('email');
    body.status = value('status') || 'subscribed';
    body.birthdate = value('birthdate')
      ? new Date(`${value('birthdate')}T00:00:00Z`).toISOString()
      : null;
    body.tags = splitList(value('tags'));
    body.interests = splitList(value('interests'));
    try {
      body.custom_fields = value('custom_fields') ? JSON.parse(value('custom_fields')) : {};
    } catch {
      setFailure(
        new ApiFailure(422, 'Custom fields must be JSON.', [
          { field: 'custom_fields', code: 'invalid_json', message: 'This is not valid JSON.' },
        ]),
      );
      return;
    }
    setBusy(true);
    setFailure(undefined);
    try {
      await api(`/subscribers/${subscriber.id}`, { method: 'PATCH', body });
      onDone();
    } catch (error) {
      setFailure(toFailure(error));
      setBusy(false);
    }
  };

  const error = (field: string) => failure?.fieldMessage(field);
  return (
    <section aria-labelledby="edit-title" className="section">
      <h2 id="edit-title">Edit profile</h2>
      <form onSubmit={(event) => void submit(event)} noValidate className="form-grid">
        {TEXT_FIELDS.map(([field, label]) => (
          <TextField
            key={field}
            label={label}
            name={field}
            type={field === 'email' ? 'email' : 'text'}
            defaultValue={(subscriber[field] as string | null) ?? ''}
            error={error(field)}
          />
        ))}
        <TextField
          label="Birthdate"
          name="birthdate"
          type="date"
          defaultValue={subscriber.birthdate?.slice(0, 10) ?? ''}
          error={error('birthdate')}
        />
        <TextField
          label="Tags"
          name="tags"
          hint="Comma-separated."
          defaultValue={subscriber.tags.join(', ')}
          error={error('tags')}
        />
        <TextField
          label="Interests"
          name="interests"
          hint="Comma-separated."
          defaultValue={subscriber.interests.join(', ')}
          error={error('interests')}
        />
        <div className="form-grid-wide">
          <TextAreaField
            label="Custom fields"
            name="custom_fields"
            rows={5}
            className="mono"
            hint="A JSON object; its keys become merge fields in templates."
            defaultValue={JSON.stringify(subscriber.custom_fields, null, 2)}
            error={error('custom_fields')}
          />
        </div>
        {failure && failure.explain({ except: EDITED_FIELDS }).length > 0 && (
          <div className="form-grid-wide">
            <FormFailure failure={failure} fields={EDITED_FIELDS} />
          </div>
        )}
        <div className="form-actions form-grid-wide">
          <button type="button" className="button" onClick={onDone}>
            Cancel
          </button>
          <button type="submit" className="button button-primary" disabled={busy}>
            {busy ? 'Saving…' : 'Save changes'}
          </button>
        </div>
      </form>
    </section>
  );
}

function splitList(text: string): string[] {
  return text
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
}

function EraseDialog(props: {
  subscriber: Subscriber;
  open: boolean;
  onClose(): void;
  onErased(receipt: ErasureReceipt): void;
}) {
  const [typed, setTyped] = useState('');
  const email = props.subscriber.email;
  return (
    <ConfirmDialog
      open={props.open}
      title="Erase this identity?"
      confirmLabel="Erase identity"
      danger
      ready={typed.trim().toLowerCase() === email.toLowerCase()}
      onClose={() => {
        setTyped('');
        props.onClose();
      }}
      onConfirm={async () => {
        props.onErased(
          await api<ErasureReceipt>(`/subscribers/${props.subscriber.id}/erase`, {
            method: 'POST',
          }),
        );
      }}
    >
      <p>This will, at once and for good:</p>
      <ul className="bullets">
        <li>
          delete <strong>{email}</strong> and every field, tag and statistic of this subscriber;
        </li>
        <li>remove their personal data from queued and stored messages;</li>
        <li>
          keep only a keyed hash of the address, so that adding, updating or emailing it later is
          refused, and campaigns skip it.
        </li>
      </ul>
      <TextField
        label={`Type ${email} to confirm`}
        value={typed}
        onChange={(event) => setTyped(event.target.value)}
        autoComplete="off"
      />
    </ConfirmDialog>
  );
}
