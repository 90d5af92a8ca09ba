import { Controller, HttpCode, Param, Post } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Caller, Principal } from '../auth/principal';
import { SubscribersService } from './subscribers.service';

/** What only the dashboard does with subscribers; everything else is SubscribersController. */
@ApiExcludeController()
@Controller('dashboard/api/subscribers')
export class SubscribersDashboardController {
  constructor(private readonly subscribers: SubscribersService) {}

  /**
   * The subscriber page's Erase button: erases this subscriber's identity (their personal
   * data goes everywhere it is stored; only a keyed hash of the email stays, so they are
   * never written to again).
   */
  @Post(':id/erase')
  @HttpCode(200)
  erase(@Caller() caller: Principal, @Param('id') id: string) {
    return this.subscribers.erase(caller, id);
  }
}
