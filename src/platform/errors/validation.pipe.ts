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
    const failed = Object.entries(error.constraints ?? {}).map(([name, message]) => ({
      code: name === REQUIRED ? 'missing' : (DETAIL_CODES[name] ?? 'invalid_value'),
      message,
    }));
    // One entry per field: the most basic failure says the most (a number where a string
    // belongs is a type error, whatever its length).
    const { code, message } = failed.sort((a, b) => priority(a.code) - priority(b.code))[0] ?? {
      code: 'invalid_value',
      message: `${field} is invalid`,
    };
    return [{ field, code, message }];
  });
}

const PRIORITY = ['missing', 'unknown_field', 'invalid_type', 'invalid_format'];

function priority(code: string): number {
  const index = PRIORITY.indexOf(code);
  return index === -1 ? PRIORITY.length : index;
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
