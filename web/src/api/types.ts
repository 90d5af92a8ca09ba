/** Shapes of the dashboard API's answers (src/dashboard on the server). */

export interface Page<T> {
  data: T[];
  next_cursor: string | null;
}

export interface SessionView {
  user: { id: string; email: string; name: string | null; role: string } | null;
  account: { id: string; name: string } | null;
  csrf_token: string;
}

export interface ScopeGroup {
  resource: string;
  scopes: { scope: string; grants: string }[];
}

export interface ApiKey {
  id: string;
  name: string;
  redacted: string;
  scopes: string[];
  status: 'active' | 'revoked' | 'suspended';
  created_at: string;
  last_used_at: string | null;
}

export interface CreatedKey extends ApiKey {
  secret: string;
}

export interface SubscriberStatistics {
  sent: number;
  delivered: number;
  opens: number;
  clicks: number;
  hard_bounces: number;
  soft_bounces: number;
  revenue_cents: number;
  last_sent_at: string | null;
  last_open_at: string | null;
  last_click_at: string | null;
}

export interface Subscriber {
  id: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  phone: string | null;
  address1: string | null;
  address2: string | null;
  city: string | null;
  state: string | null;
  zip: string | null;
  country_code: string | null;
  birthdate: string | null;
  gender: string | null;
  income_level: string | null;
  membership_status: string | null;
  status: string;
  timezone: string | null;
  interests: string[];
  tags: string[];
  custom_fields: Record<string, unknown>;
  social_media: { platform: string; profile_id: string }[];
  statistics: SubscriberStatistics;
  created_at: string;
  updated_at: string;
}

export interface ErasureReceipt {
  email_hash: string;
  erased_at: string;
}

export type Actor =
  | { type: 'api_key'; id: string; name: string | null; redacted: string | null }
  | { type: 'user'; id: string; email: string | null; name: string | null }
  | { type: 'system' };

export interface AuditEvent {
  id: string;
  at: string;
  action: string;
  actor: Actor;
  subject_hash: string | null;
  metadata: Record<string, unknown>;
}

export interface Template {
  id: string;
  name: string;
  subject: string;
  html: string | null;
  text: string | null;
  created_at: string;
  updated_at: string;
}

export interface Rendered {
  subject: string;
  html: string | null;
  text: string | null;
}

export interface Segment {
  id: string;
  name: string;
  filter: Record<string, unknown>;
  count?: number;
  created_at: string;
  updated_at: string;
}

export interface SegmentField {
  field: string;
  type: 'text' | 'list' | 'date';
  operators: string[];
}

export interface CampaignProgress {
  recipients: number;
  sent: number;
  delivered: number;
  failed: number;
  skipped: number;
  /** Recipients still pending when the campaign was cancelled: never sent. */
  cancelled: number;
  percent: number;
  /** While sending: when it should be done at the pace its send rates allow. */
  expected_finish_at: string | null;
}

export type PausedReason = 'complaint_rate' | 'bounce_rate';

export type CampaignStatus = 'draft' | 'scheduled' | 'sending' | 'paused' | 'sent' | 'cancelled';

export interface Campaign {
  id: string;
  name: string;
  subject: string;
  from: string;
  template_id: string | null;
  segment_id: string | null;
  html: string | null;
  text: string | null;
  status: CampaignStatus;
  /** Why the campaign paused itself (its bounce or complaint rate); null when a person paused it. */
  paused_reason: PausedReason | null;
  send_at: string | null;
  rate_per_minute: number | null;
  progress: CampaignProgress;
  started_at: string | null;
  finished_at: string | null;
  cancelled_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface CampaignStats {
  id: string;
  status: string;
  recipients: number;
  sent: number;
  delivered: number;
  failed: number;
  skipped_erased: number;
  skipped_unsubscribed: number;
  skipped_bounced: number;
  skipped_complained: number;
  skipped_suppressed: number;
  /** A status none of subscribed, unsubscribed, bounced, complained (`pending`, say). */
  skipped_other: number;
  opens: number;
  unique_opens: number;
  machine_opens: number;
  clicks: number;
  unique_clicks: number;
  machine_clicks: number;
  bounces: number;
  hard_bounces: number;
  soft_bounces: number;
  complaints: number;
  unsubscribes: number;
  open_rate: number;
  click_rate: number;
  bounce_rate: number;
  complaint_rate: number;
  unsubscribe_rate: number;
  cancelled: number;
  conversions: number;
  revenue_cents: number;
  links: { url: string; clicks: number; unique_clicks: number; machine_clicks: number }[];
  outstanding: number;
  percent: number;
  started_at: string | null;
  finished_at: string | null;
}

export type TimelineSeries = 'delivered' | 'failed' | 'skipped' | 'opens' | 'clicks';

export interface Timeline {
  start: string | null;
  bucket_seconds: number;
  buckets: ({ at: string } & Record<TimelineSeries, number>)[];
}

export interface AccountSettings {
  name: string;
  postal_address: string | null;
}

export type RecordStatus = 'pending' | 'found' | 'missing' | 'mismatch';

export interface DomainRecord {
  purpose: 'dkim' | 'spf' | 'return_path' | 'dmarc';
  type: 'TXT' | 'MX';
  name: string;
  value: string;
  priority?: number;
  status: RecordStatus;
  reason: string | null;
}

export interface SenderDomain {
  id: string;
  name: string;
  status: 'pending' | 'verified' | 'failed';
  records: DomainRecord[];
  verified_at: string | null;
  last_checked_at: string | null;
  dkim_selector: string;
  pending_dkim_selector: string | null;
  created_at: string;
}

export interface Person {
  id: string;
  email: string;
  name: string | null;
  role: string;
  created_at: string;
  last_sign_in_at: string | null;
}

export interface Invitation {
  id: string;
  email: string;
  role: string;
  status: 'pending' | 'accepted' | 'revoked' | 'expired';
  invited_by: string | null;
  created_at: string;
  expires_at: string;
  accepted_at: string | null;
}

/** The creation answer: the only time the link is shown. */
export interface CreatedInvitation extends Invitation {
  url: string;
  emailed: boolean;
}

export interface InvitationPreview {
  email: string;
  account_name: string;
  expires_at: string;
}

export interface Suppression {
  email: string;
  reason: 'manual' | 'hard_bounce' | 'complaint' | 'unsubscribe';
  created_at: string;
}

export interface TestSendResult {
  email: string;
  status: 'sent' | 'failed';
  error: string | null;
}

/** GET /stats: one day's (or the window's) counts. */
export interface StatsCounts {
  sent: number;
  delivered: number;
  opens: number;
  unique_opens: number;
  machine_opens: number;
  clicks: number;
  unique_clicks: number;
  machine_clicks: number;
  hard_bounces: number;
  soft_bounces: number;
  complaints: number;
  unsubscribes: number;
  revenue_cents: number;
}

export interface AccountStats extends StatsCounts {
  from: string;
  to: string;
  daily: (StatsCounts & { date: string })[];
  subscribers: {
    total: number;
    subscribed: number;
    unsubscribed: number;
    bounced: number;
    complained: number;
  };
}

export interface WebhookEndpoint {
  id: string;
  url: string;
  events: string[];
  description: string | null;
  enabled: boolean;
  disabled_reason: string | null;
  created_at: string;
}

export interface CreatedWebhookEndpoint extends WebhookEndpoint {
  secret: string;
}

export interface WebhookDelivery {
  id: string;
  event_id: string;
  type: string;
  status: 'pending' | 'succeeded' | 'failed';
  attempts: number;
  response_status: number | null;
  latency_ms: number | null;
  error: string | null;
  next_attempt_at: string | null;
  created_at: string;
}

/** Hard bounces and complaints over delivered messages, as the reputation guard counts them. */
export interface ReputationCounts {
  delivered: number;
  hard_bounces: number;
  complaints: number;
  bounce_rate: number;
  complaint_rate: number;
}

/** A campaign's bounce and complaint rates (dashboard only). */
export interface CampaignReputation extends ReputationCounts {
  id: string;
  name: string;
  status: CampaignStatus;
  paused_reason: PausedReason | null;
  started_at: string | null;
  /** The counts since the campaign last resumed: what the guard judges. */
  judged: ReputationCounts;
}

/** When a campaign pauses itself (COMPLAINT_RATE_LIMIT, BOUNCE_RATE_LIMIT, RATE_GUARD_MIN_DELIVERED). */
export interface ReputationLimits {
  complaint_rate: number;
  bounce_rate: number;
  min_delivered: number;
}

/** One event of a message's timeline (GET /v1/messages/{id}). */
export interface MessageEvent {
  type: string;
  at: string;
  smtp_code?: number;
  reason?: string;
  url?: string;
  machine?: boolean;
}

/** A message of the message log; `events` only on the detail. */
export interface LoggedMessage {
  id: string;
  message_id: string | null;
  source: 'campaign' | 'transactional' | 'automation' | 'test';
  campaign_id: string | null;
  automation_id: string | null;
  automation_run_id: string | null;
  subscriber_id: string | null;
  recipient: string | null;
  from: string;
  subject: string | null;
  status: string;
  created_at: string;
  events?: MessageEvent[];
}
