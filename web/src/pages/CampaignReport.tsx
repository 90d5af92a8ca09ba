import { Link } from 'react-router';
import type { CampaignStats } from '../api/types';
import { DataTable } from '../ui/DataTable';
import { Definitions } from '../ui/Definitions';
import { formatCents, formatCount, formatRate } from '../ui/format';

/**
 * A campaign's report: the rates people look at first (opens and clicks by people, over
 * delivered messages), what happened to the messages, the money they brought, and clicks per
 * link. Machine opens and clicks (privacy proxies, link scanners) are shown apart: they are
 * not people reading.
 */
export function CampaignReport({ stats }: { stats: CampaignStats }) {
  const skipped =
    stats.skipped_erased +
    stats.skipped_unsubscribed +
    stats.skipped_bounced +
    stats.skipped_complained +
    stats.skipped_suppressed +
    stats.skipped_other;
  return (
    <section className="section" aria-labelledby="stats-title">
      <h2 id="stats-title">Report</h2>
      <p>
        <Link to={`/activity?campaign_id=${stats.id}`}>Every message of this campaign</Link>, with
        what happened to each (Activity).
      </p>
      <Definitions
        className="tiles tiles-rates"
        itemClassName="tile"
        items={[
          ['Open rate', formatRate(stats.open_rate)],
          ['Click rate', formatRate(stats.click_rate)],
          ['Bounce rate', formatRate(stats.bounce_rate)],
          ['Complaint rate', formatRate(stats.complaint_rate)],
          ['Unsubscribe rate', formatRate(stats.unsubscribe_rate)],
          ['Revenue', formatCents(stats.revenue_cents)],
        ]}
      />
      <Definitions
        className="tiles"
        itemClassName="tile"
        items={[
          ['Recipients', formatCount(stats.recipients)],
          ['Delivered', formatCount(stats.delivered)],
          ['Failed', formatCount(stats.failed)],
          ['Skipped', formatCount(skipped)],
          ['Unique opens', formatCount(stats.unique_opens)],
          ['Opens', formatCount(stats.opens)],
          ['Unique clicks', formatCount(stats.unique_clicks)],
          ['Clicks', formatCount(stats.clicks)],
          ['Hard bounces', formatCount(stats.hard_bounces)],
          ['Soft bounces', formatCount(stats.soft_bounces)],
          ['Complaints', formatCount(stats.complaints)],
          ['Unsubscribes', formatCount(stats.unsubscribes)],
          ['Conversions', formatCount(stats.conversions)],
        ]}
      />
      <p className="muted small" data-testid="feedback-rates">
        Of delivered messages: {formatRate(stats.open_rate)} opened and{' '}
        {formatRate(stats.click_rate)} clicked by people, {formatRate(stats.bounce_rate)} bounced
        (hard), {formatRate(stats.complaint_rate)} complained, {formatRate(stats.unsubscribe_rate)}{' '}
        unsubscribed.
      </p>
      <p className="muted small" data-testid="machine-activity">
        Not counted as people: {formatCount(stats.machine_opens)} machine opens and{' '}
        {formatCount(stats.machine_clicks)} machine clicks (mail privacy proxies, link scanners,
        anything within seconds of delivery).
      </p>
      <p className="muted small">
        Skipped: {stats.skipped_unsubscribed} unsubscribed, {stats.skipped_bounced} bounced,{' '}
        {stats.skipped_complained} complained, {stats.skipped_suppressed} suppressed,{' '}
        {stats.skipped_erased} erased, {stats.skipped_other} not opted in (another status, such as
        pending).
      </p>
      <h3>Clicks per link</h3>
      {stats.links.length === 0 ? (
        <p className="muted">No link has been clicked yet.</p>
      ) : (
        <DataTable
          caption="Clicks per link"
          columns={['Link', 'Clicks', 'Unique clicks', 'Machine clicks']}
          rows={stats.links}
        >
          {(link) => (
            <tr key={link.url}>
              <td className="link-url">
                <a href={link.url} rel="noreferrer noopener" target="_blank">
                  {link.url}
                </a>
              </td>
              <td className="numeric">{formatCount(link.clicks)}</td>
              <td className="numeric">{formatCount(link.unique_clicks)}</td>
              <td className="numeric">{formatCount(link.machine_clicks)}</td>
            </tr>
          )}
        </DataTable>
      )}
    </section>
  );
}
