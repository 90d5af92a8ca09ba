import { applyDecorators } from '@nestjs/common';
import { Transform } from 'class-transformer';
import { IsEmail, MaxLength } from 'class-validator';

/**
 * An email address field: surrounding blanks are trimmed before validation (a pasted
 * address often carries them), then it must be a syntactically valid address of at most
 * 254 characters (RFC 5321's path limit).
 */
export function EmailAddress(): PropertyDecorator {
  return applyDecorators(
    Transform(({ value }: { value: unknown }) =>
      typeof value === 'string' ? value.trim() : value,
    ),
    IsEmail({}, { message: '$property must be an email address' }),
    MaxLength(254),
  );
}
