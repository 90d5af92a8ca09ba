import { ValidateIf } from 'class-validator';

/**
 * A body member that may be left out (most often a PATCH field): absent, none of its rules
 * run; present, even as null, all of them do. Unlike IsOptional, which lets null through as
 * well, so a field whose null means nothing is refused with a 422 instead.
 */
export function Omittable(): PropertyDecorator {
  return ValidateIf((_: object, value: unknown) => value !== undefined);
}
