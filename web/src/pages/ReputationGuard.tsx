import { Link } from 'react-router';
import { useApi } from '../api/hooks';
import type { CampaignReputation, ReputationLimits } from '../api/types';
import { DataTable } from '../ui/DataTable';
import { formatCount, formatRate } from '../ui/format';
import { ErrorNotice, Loading, WarningNotice } from '../ui/Notice';
import { StatusBadge } from './KeysPage';

/**
 * Why Herald paused a campaign by itself, in a marketer's words: which rate passed which
 * limit, what that costs the sender, and what to do before resuming. Shown on the page of a
 * campaign the reputation guard paused (its `paused_reason` is set).
 */
export function GuardPauseExplanation({ campaignId }: { campaignId: string }) {
  const answer = useApi<{ limits: ReputationLimits; campaign: CampaignReputation }>(
    `/campaigns/${encodeURIComponent(campaignId)}/reputation`,
  );
  if (answer.error) return <ErrorNotice>{answer.error.message}</ErrorNotice>;
  if (!answer.data) return <Loading />;
  const { limits, campaign } = answer.data;
  const judged = campaign.judged;
  const complaints = campaign.paused_reason === 'complaint_rate';
  return (
    <section className="section" aria-labelledby="guard-title" data-testid="guard-explanation">
      <WarningNotice>
        <h2 id="guard-title">Herald paused this campaign to protect your sender reputation</h2>
        {complaints ? (
          <p>
            <strong>{formatRate(judged.complaint_rate)}</strong> of the people who received it
            marked it as spam ({formatCount(judged.complaints)} of {formatCount(judged.delivered)}{' '}
            delivered). Herald stops a campaign when more than{' '}
            <strong>{formatRate(limits.complaint_rate)}</strong> complain: past that, Gmail and
            Yahoo start sending your mail to spam or refusing it, for every campaign and every
            receipt you send, not just this one.
          </p>
        ) : (
          <p>
            <strong>{formatRate(judged.bounce_rate)}</strong> of its messages bounced because the
            address does not exist ({formatCount(judged.hard_bounces)} of{' '}
            {formatCount(judged.delivered)} delivered). Herald stops a campaign when more than{' '}
            <strong>{formatRate(limits.bounce_rate)}</strong> bounce: mailbox providers take a list
            full of dead addresses as a sign of a bought or neglected list, and start blocking your
            mail.
          </p>
        )}
        <p>
          <strong>What to do:</strong>{' '}
          {complaints
            ? 'clean your list first. Keep only people who asked for your mail: remove those who never signed up themselves or have not opened anything in months, and make sure your unsubscribe link is easy to find.'
            : 'clean your list first. Remove addresses that are old, bought, or typed by hand and never confirmed; the ones that bounced are already marked and will not be mailed again.'}{' '}
          Then press <strong>Resume</strong>: the campaign goes on to the people it has not reached
          yet, and Herald judges its rates afresh from there.
        </p>
      </WarningNotice>
    </section>
  );
}

/**
 * The account overview's table of recent campaigns: each one's hard-bounce and complaint rate
 * beside the limits past which Herald pauses a campaign by itself.
 */
export function RecentCampaignRates() {
  const answer = useApi<{ limits: ReputationLimits; campaigns: CampaignReputation[] }>(
    '/campaigns/reputation',
  );
  return (
    <section className="section" aria-labelledby="rates-title">
      <h2 id="rates-title">Bounces and complaints of recent campaigns</h2>
      {answer.error && <ErrorNotice>{answer.error.message}</ErrorNotice>}
      {!answer.data && !answer.error && <Loading />}
      {answer.data && <RatesTable {...answer.data} />}
    </section>
  );
}

function RatesTable({
  limits,
  campaigns,
}: {
  limits: ReputationLimits;
  campaigns: CampaignReputation[];
}) {
  return (
    <>
      <p className="muted" data-testid="guard-limits">
        Herald pauses a campaign by itself when more than {formatRate(limits.bounce_rate)} of its
        delivered messages bounce or more than {formatRate(limits.complaint_rate)} of recipients
        mark it as spam, once {formatCount(limits.min_delivered)} messages were delivered.
      </p>
      {campaigns.length === 0 ? (
        <p className="muted">No campaign has been sent yet.</p>
      ) : (
        <DataTable
          caption="Recent campaigns' bounce and complaint rates"
          columns={[
            'Campaign',
            'Status',
            'Delivered',
            `Bounce rate (limit ${formatRate(limits.bounce_rate)})`,
            `Complaint rate (limit ${formatRate(limits.complaint_rate)})`,
          ]}
          rows={campaigns}
        >
          {(campaign) => (
            <tr key={campaign.id} data-testid="campaign-rates">
              <td>
                <Link to={`/campaigns/${encodeURIComponent(campaign.id)}`}>{campaign.name}</Link>
              </td>
              <td>
                <StatusBadge status={campaign.status} />
                {campaign.paused_reason && <> by Herald</>}
              </td>
              <td>{formatCount(campaign.delivered)}</td>
              <td>
                <Rate share={campaign.bounce_rate} limit={limits.bounce_rate} />
              </td>
              <td>
                <Rate share={campaign.complaint_rate} limit={limits.complaint_rate} />
              </td>
            </tr>
          )}
        </DataTable>
      )}
    </>
  );
}

/** A rate, marked in words (not colour alone) when it is past its limit. */
function Rate({ share, limit }: { share: number; limit: number }) {
  const over = share > limit;
  return (
    <span className={over ? 'rate-over' : undefined}>
      {formatRate(share)}
      {over && <> · over the limit</>}
    </span>
  );
}
