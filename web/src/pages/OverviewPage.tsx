import { useState } from 'react';
import { Link } from 'react-router';
import { useApi } from '../api/hooks';
import type { AccountStats } from '../api/types';
import { DailyChart } from '../ui/DailyChart';
import { Definitions } from '../ui/Definitions';
import { formatCents, formatCount, formatRate } from '../ui/format';
import { ErrorNotice, Loading } from '../ui/Notice';
import { PageHeader } from '../ui/PageHeader';
import { RecentCampaignRates } from './ReputationGuard';

const WINDOWS = [7, 30, 90] as const;

/** The day `days − 1` days before today (UTC), so the window has `days` days. */
function fromFor(days: number): string {
  const date = new Date();
  date.setUTCDate(date.getUTCDate() - (days - 1));
  return date.toISOString().slice(0, 10);
}

const share = (part: number, whole: number) => (whole === 0 ? 0 : part / whole);

/** The account at a glance: what its mail did over a window, day by day, and its audience. */
export function OverviewPage() {
  const [days, setDays] = useState<(typeof WINDOWS)[number]>(30);
  const stats = useApi<AccountStats>(`/stats?from=${fromFor(days)}`);

  return (
    <>
      <PageHeader
        title="Overview"
        description={
          <>
            What your mail did, day by day (UTC). Opens and clicks by machines (privacy proxies,
            link scanners) are left out. Each message:{' '}
            <Link to="/activity?source=transactional">transactional mail</Link>,{' '}
            <Link to="/activity">all activity</Link>.
          </>
        }
        actions={
          <div className="segmented" role="group" aria-label="Window">
            {WINDOWS.map((window) => (
              <button
                key={window}
                type="button"
                className={
                  window === days ? 'button button-small button-primary' : 'button button-small'
                }
                aria-pressed={window === days}
                onClick={() => setDays(window)}
              >
                {window} days
              </button>
            ))}
          </div>
        }
      />
      {stats.error && <ErrorNotice>{stats.error.message}</ErrorNotice>}
      {!stats.data && !stats.error && <Loading />}
      {stats.data && (
        <>
          <section className="section" aria-labelledby="totals-title">
            <h2 id="totals-title">Last {days} days</h2>
            <Definitions
              className="tiles"
              itemClassName="tile"
              items={[
                ['Sent', formatCount(stats.data.sent)],
                ['Delivered', formatCount(stats.data.delivered)],
                ['Open rate', formatRate(share(stats.data.unique_opens, stats.data.delivered))],
                ['Click rate', formatRate(share(stats.data.unique_clicks, stats.data.delivered))],
                ['Unique opens', formatCount(stats.data.unique_opens)],
                ['Unique clicks', formatCount(stats.data.unique_clicks)],
                ['Hard bounces', formatCount(stats.data.hard_bounces)],
                ['Soft bounces', formatCount(stats.data.soft_bounces)],
                ['Complaints', formatCount(stats.data.complaints)],
                ['Unsubscribes', formatCount(stats.data.unsubscribes)],
                ['Revenue', formatCents(stats.data.revenue_cents)],
              ]}
            />
          </section>
          <section className="section" aria-labelledby="mail-chart-title">
            <h2 id="mail-chart-title">Mail per day</h2>
            <DailyChart
              title="Mail per day"
              days={stats.data.daily}
              series={[
                { key: 'sent', label: 'Sent', color: '#94a3b8' },
                { key: 'delivered', label: 'Delivered', color: '#2563eb' },
                { key: 'hard_bounces', label: 'Hard bounces', color: '#dc2626' },
              ]}
            />
          </section>
          <section className="section" aria-labelledby="engagement-chart-title">
            <h2 id="engagement-chart-title">Engagement per day</h2>
            <DailyChart
              title="Engagement per day"
              days={stats.data.daily}
              series={[
                { key: 'unique_opens', label: 'Unique opens', color: '#059669' },
                { key: 'unique_clicks', label: 'Unique clicks', color: '#7c3aed' },
                { key: 'unsubscribes', label: 'Unsubscribes', color: '#a16207' },
                { key: 'complaints', label: 'Complaints', color: '#be123c' },
              ]}
            />
          </section>
          <RecentCampaignRates />
          <section className="section" aria-labelledby="audience-title">
            <h2 id="audience-title">Subscribers now</h2>
            <Definitions
              className="tiles"
              itemClassName="tile"
              items={[
                ['All', formatCount(stats.data.subscribers.total)],
                ['Subscribed', formatCount(stats.data.subscribers.subscribed)],
                ['Unsubscribed', formatCount(stats.data.subscribers.unsubscribed)],
                ['Bounced', formatCount(stats.data.subscribers.bounced)],
                ['Complained', formatCount(stats.data.subscribers.complained)],
              ]}
            />
          </section>
        </>
      )}
    </>
  );
}
