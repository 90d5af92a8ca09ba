import { InvalidRequestError } from '../platform/errors/api-errors';
import { parseMessageFilters } from './message-filters';

describe('parseMessageFilters', () => {
  it('parses every filter', () => {
    expect(
      parseMessageFilters({
        recipient: ' Ada@Example.com ',
        status: 'bounced',
        source: 'campaign',
        campaign_id: '0193A5B2-7C4D-7E8F-9A0B-1C2D3E4F5A6B',
        since: '2026-01-31T09:00:00Z',
        until: '2026-02-01T10:00:00.123+02:00',
      }),
    ).toEqual({
      recipient: 'Ada@Example.com',
      status: 'bounced',
      source: 'campaign',
      campaignId: '0193a5b2-7c4d-7e8f-9a0b-1c2d3e4f5a6b',
      since: new Date('2026-01-31T09:00:00Z'),
      until: new Date('2026-02-01T08:00:00.123Z'),
    });
    expect(parseMessageFilters({})).toEqual({});
  });

  it.each([
    { recipient: 'nobody' },
    { status: 'sending' },
    { source: 'newsletter' },
    { campaign_id: '12' },
    { automation_id: 'x' },
    { since: '2026-01-31' },
    { since: '2026-02-30T00:00:00Z' },
    { until: 'tomorrow' },
    { status: ['sent', 'delivered'] },
  ])('refuses %p with 400', (query) => {
    expect(() => parseMessageFilters(query)).toThrow(InvalidRequestError);
  });
});
