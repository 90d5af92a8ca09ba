import { registerDecorator, ValidationArguments, isEmail } from 'class-validator';

/** `address` or `Display Name <address>`, on one line (a header value must not break). */
const NAMED = /^\s*(?:"[^"\r\n]*"|[^"<>\r\n]*?)\s*<([^<>\s]+)>\s*$/;

export function parseMailbox(value: string): string | undefined {
  if (/[\r\n]/.test(value)) return undefined;
  const address = NAMED.exec(value)?.[1] ?? value.trim();
  return isEmail(address) ? address : undefined;
}

/** A sender mailbox as nodemailer accepts it; 422 invalid_format otherwise. */
export function Mailbox(): PropertyDecorator {
  return (target: object, propertyName: string | symbol) => {
    registerDecorator({
      name: 'isEmail',
      target: target.constructor,
      propertyName: propertyName as string,
      options: {
        message: (args: ValidationArguments) =>
          `${args.property} must be an email address or "Name <address>"`,
      },
      validator: {
        validate: (value: unknown) =>
          typeof value === 'string' && value.length <= 320 && parseMailbox(value) !== undefined,
      },
    });
  };
}
