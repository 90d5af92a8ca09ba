import type { ErrorDetail } from '../platform/errors/api-errors';
import { checkAgainstDto } from '../platform/errors/validation.pipe';
import { CreateSubscriberDto } from '../subscribers/subscriber.dto';
import { QuickDtoCheck } from './quick-dto-check';

/**
 * An import row's body checked with the API's rules for creating a subscriber: the quick check
 * first, and the full DTO validation (whose details are reported) only for what it does not
 * accept.
 */
export class SubscriberRowCheck {
  private readonly quick = new QuickDtoCheck(CreateSubscriberDto);

  async validate(
    body: Record<string, unknown>,
  ): Promise<{ instance: CreateSubscriberDto } | { details: ErrorDetail[] }> {
    const accepted = this.quick.accept(body);
    if (accepted) return { instance: accepted };
    const { instance, details } = await checkAgainstDto<CreateSubscriberDto>(
      CreateSubscriberDto,
      body,
    );
    return details.length > 0 ? { details } : { instance };
  }
}
