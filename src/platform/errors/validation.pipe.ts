import { ArgumentMetadata, Injectable, PipeTransform } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validate, ValidationError } from 'class-validator';
import { ErrorDetail, InvalidRequestError, ValidationFailedError } from './api-errors';

/**
 * Validates JSON bodies against their DTO class. SPEC §7 splits failures in two:
 * a body that is not an object or lacks a required field is malformed (400); a body whose
 * fields are present but wrong is a validation failure (422, one detail per field).
 */
@Injectable()
export class RequestValidationPipe implements PipeTransform {
  async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const dto = metadata.metatype;
    if (metadata.type !== 'body' || !dto || isBuiltIn(dto)) return value;
    if (!isPlainObject(value)) {
      throw new InvalidRequestError('The request body must be a JSON object.');
    }
    const instance = plainToInstance(dto, value) as object;
    const errors = await validate(instance, {
      whitelist: true,
      forbidNonWhitelisted: true,
      forbidUnknownValues: true,
    });
    if (errors.length > 0) throw toApiError(errors);
    return instance;
  }
}

export const REQUIRED = 'isDefined';

/** class-validator constraint name → the `code` of a 422 detail entry. */
const DETAIL_CODES: Record<string, string> = {
  isEmail: 'invalid_format',
  isIso8601: 'invalid_format',
  isISO8601: 'invalid_format',
  isUuid: 'invalid_format',
  isUrl: 'invalid_format',
  matches: 'invalid_format',
  isString: 'invalid_type',
  isInt: 'invalid_type',
  isNumber: 'invalid_type',
  isBoolean: 'invalid_type',
  isArray: 'invalid_type',
  isObject: 'invalid_type',
  nestedValidation: 'invalid_type',
  maxLength: 'too_long',
  minLength: 'too_short',
  arrayMaxSize: 'too_long',
  isNotEmpty: 'too_short',
  min: 'out_of_range',
  max: 'out_of_range',
  isIn: 'invalid_value',
  whitelistValidation: 'unknown_field',
};

function toApiError(errors: ValidationError[]) {
  const details = flatten(errors);
  const missing = details.find((detail) => detail.code === 'missing');
  if (missing) return new InvalidRequestError(`Missing required field: ${missing.field}.`);
  return new ValidationFailedError(details);
}

function flatten(errors: ValidationError[], parent = ''): ErrorDetail[] {
  return errors.flatMap((error) => {
    const field = parent ? childPath(parent, error.property) : error.property;
    if (error.children?.length) return flatten(error.children, field);
    const constraints = Object.entries(error.constraints ?? {});
    // One entry per field: the first constraint that failed says the most.
    const [name, message] = constraints.find(([key]) => key === REQUIRED) ??
      constraints[0] ?? ['invalid', `${field} is invalid`];
    const code = name === REQUIRED ? 'missing' : (DETAIL_CODES[name] ?? 'invalid_value');
    return [{ field, code, message }];
  });
}

function childPath(parent: string, property: string): string {
  return /^\d+$/.test(property) ? `${parent}[${property}]` : `${parent}.${property}`;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isBuiltIn(type: unknown): boolean {
  return [String, Number, Boolean, Array, Object].includes(type as never);
}
