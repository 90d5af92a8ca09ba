import { applyDecorators } from '@nestjs/common';
import { registerDecorator, ValidationArguments } from 'class-validator';
import { isDayWithin, latestToday, parseIsoDate } from './calendar-date';

export interface DateRange {
  /** `YYYY-MM-DD`, inclusive. */
  from: string;
  /** `YYYY-MM-DD`, inclusive, or `today`. */
  until: string;
}

/**
 * A real calendar date (or date-time with offset) in extended ISO 8601, inside `range`:
 * `invalid_format` when it cannot be read, `out_of_range` when it is outside.
 */
export function CalendarDate(range: DateRange): PropertyDecorator {
  const until = () => (range.until === 'today' ? latestToday() : range.until);
  const readable: PropertyDecorator = (target, propertyName) =>
    registerDecorator({
      name: 'isIsoDate',
      target: target.constructor,
      propertyName: propertyName as string,
      options: {
        message: (args: ValidationArguments) =>
          `${args.property} must be a date (YYYY-MM-DD) or a date-time with offset`,
      },
      validator: { validate: (value: unknown) => parsed(value) !== undefined },
    });
  const inRange: PropertyDecorator = (target, propertyName) =>
    registerDecorator({
      name: 'dateInRange',
      target: target.constructor,
      propertyName: propertyName as string,
      options: {
        message: (args: ValidationArguments) =>
          `${args.property} must be between ${range.from} and ${range.until}`,
      },
      validator: {
        validate: (value: unknown) => {
          const date = parsed(value);
          return date === undefined || isDayWithin(date, range.from, until());
        },
      },
    });
  return applyDecorators(readable, inRange);
}

function parsed(value: unknown) {
  return typeof value === 'string' ? parseIsoDate(value) : undefined;
}
