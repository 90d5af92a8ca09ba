import { Controller, Get, Query } from '@nestjs/common';
import { ApiQuery, ApiTags } from '@nestjs/swagger';
import { Caller, Principal } from '../auth/principal';
import { ApiEndpoint } from '../platform/openapi/api-endpoint.decorator';
import { SubscriberCounts } from '../subscribers/subscriber-counts';
import { AccountStatsResponse, presentCounts, presentDay } from './stats.presenter';
import { StatsService } from './stats.service';
import { DEFAULT_DAYS, MAX_DAYS, parseStatsWindow } from './stats-window';

/** The account's statistics: GET /v1/stats, and the dashboard's overview. */
@ApiTags('stats')
@Controller(['v1/stats', 'dashboard/api/stats'])
export class StatsController {
  constructor(
    private readonly stats: StatsService,
    private readonly subscribers: SubscriberCounts,
  ) {}

  @Get()
  @ApiQuery({
    name: 'from',
    required: false,
    schema: { type: 'string', format: 'date' },
    description: `First day (UTC). Default: ${DEFAULT_DAYS - 1} days before \`to\`.`,
  })
  @ApiQuery({
    name: 'to',
    required: false,
    schema: { type: 'string', format: 'date' },
    description: `Last day (UTC), inclusive. Default: today. At most ${MAX_DAYS} days in all.`,
  })
  @ApiEndpoint({
    id: 'getAccountStats',
    summary: "Get the account's statistics",
    description:
      'Totals over the window, one entry per day, and subscribers by status. Machine opens and clicks (privacy proxies, link scanners) are counted apart and excluded from opens, clicks and the unique counts.',
    success: { status: 200, type: AccountStatsResponse },
    errors: [422],
  })
  async get(
    @Caller() caller: Principal,
    @Query('from') rawFrom: unknown,
    @Query('to') rawTo: unknown,
  ): Promise<AccountStatsResponse> {
    const { from, to } = parseStatsWindow(rawFrom, rawTo);
    const [{ daily, totals }, subscribers] = await Promise.all([
      this.stats.days(caller.accountId, from, to),
      this.subscribers.byStatus(caller.accountId),
    ]);
    return { from, to, ...presentCounts(totals), daily: daily.map(presentDay), subscribers };
  }
}
