import { registerDecorator, ValidationArguments } from 'class-validator';
import { MAX_MAILBOX_LENGTH, parseMailbox } from './mailbox';

/** A sender mailbox (see parseMailbox); 422 invalid_format otherwise. */
export function Mailbox(): PropertyDecorator {
  return (target: object, propertyName: string | symbol) => {
    registerDecorator({
      name: 'isMailbox',
      target: target.constructor,
      propertyName: propertyName as string,
      options: {
        message: (args: ValidationArguments) =>
          `${args.property} must be an email address or "Name <address>" of at most ${MAX_MAILBOX_LENGTH} characters`,
      },
      validator: {
        validate: (value: unknown) =>
          typeof value === 'string' && parseMailbox(value) !== undefined,
      },
    });
  };
}
