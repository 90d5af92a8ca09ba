import { ArgumentMetadata, Injectable, PipeTransform } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validate, ValidationError } from 'class-validator';
import { childPath, isTopLevel } from '../validation/field-path';
import { containsInvalidText, findInvalidText } from '../validation/text-integrity';
import { ErrorDetail, InvalidRequestError, ValidationFailedError } from './api-errors';
import { describeDto, DtoClass, DtoShape } from './dto-shape';

/** A body can be wrong in many places; the answer names the first this many. */
export const MAX_DETAILS = 100;

/**
 * Validates JSON bodies against their DTO class. The line between 400 and 422: a body that
 * is not an object, or lacks a required top-level field, is malformed (400); everything wrong
 * about a field that is present, down to a missing key inside one of its items, is a
 * validation failure (422, one detail per field, its path in `field`).
 *
 * The body is cut down to the DTO's shape before class-transformer sees it (unknown keys and
 * over-long lists reported, objects and lists set aside), so the work done on a hostile body
 * is linear in its size whatever it holds.
 */
@Injectable()
export class RequestValidationPipe implements PipeTransform {
  async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type !== 'body') return value;
    const dto = metadata.metatype;
    if (!dto || isBuiltIn(dto)) {
      const invalidText = invalidTextDetails(value);
      if (invalidText.length > 0) throw new ValidationFailedError(invalidText);
      return value;
    }
    if (!isPlainObject(value)) {
      throw new InvalidRequestError('The request body must be a JSON object.');
    }
    const { instance, details } = await checkAgainstDto(dto as DtoClass, value);
    const missing = details.find((detail) => detail.code === 'missing' && isTopLevel(detail.field));
    if (missing) throw new InvalidRequestError(`Missing required field: ${missing.field}.`);
    if (details.length > 0) throw new ValidationFailedError(details.slice(0, MAX_DETAILS));
    return instance;
  }
}

/**
 * The rules of a body DTO applied to one object, as the pipe applies them to a body: what is
 * wrong, one detail per field (a required field that is absent has code `missing`), and the
 * validated instance. Bulk writes (a batch item, a CSV row) run each item through this, so an
 * item is accepted exactly when the same object would be as a body of its own.
 */
export async function checkAgainstDto<T extends object>(
  dto: DtoClass,
  value: Record<string, unknown>,
): Promise<{ instance: T; details: ErrorDetail[] }> {
  const invalidText = invalidTextDetails(value);
  const shaped: Shaped = { attachments: [], details: [] };
  const working = shape(describeDto(dto), value, '', [], shaped);
  const instance = plainToInstance(dto as new () => T, working);
  for (const { at, value: field } of shaped.attachments) attach(instance, at, field);
  const errors = await validate(instance, {
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: true,
  });
  // A field refused while shaping (an over-long list) was kept from the validators, which
  // would otherwise report a required one as missing.
  const shapedFields = new Set(shaped.details.map((detail) => detail.field));
  const validated = flatten(errors).filter((detail) => !shapedFields.has(detail.field));
  return { instance, details: merge([invalidText, shaped.details, validated]) };
}

function invalidTextDetails(value: unknown): ErrorDetail[] {
  return findInvalidText(value, childPath, MAX_DETAILS).map(({ path, inKey }): ErrorDetail => ({
    field: path || 'body',
    code: 'invalid_characters',
    message: `${path || 'The body'} ${inKey ? 'has a key that contains' : 'contains'} a NUL character or an unpaired surrogate.`,
  }));
}

interface Shaped {
  /** Objects and lists set aside, to be put back at `at` in the DTO instance, as parsed. */
  attachments: { at: (string | number)[]; value: unknown }[];
  details: ErrorDetail[];
}

/**
 * What class-transformer may copy: the DTO's known fields, only primitive values (and nested
 * DTOs, cut the same way). Objects and lists go around it: it copies objects key by key in
 * quadratic time and trips over a key named `constructor`; validators read them as parsed.
 */
function shape(
  dto: DtoShape,
  value: Record<string, unknown>,
  base: string,
  at: (string | number)[],
  shaped: Shaped,
): Record<string, unknown> {
  const working: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    const path = childPath(base, key);
    if (!dto.fields.has(key)) {
      shaped.details.push({
        field: path,
        code: 'unknown_field',
        message: `${path} is not a field of this request.`,
      });
      continue;
    }
    // Already reported (invalid_characters); validators are not shown it: some of them (isEmail)
    // throw on an unpaired surrogate.
    if (containsInvalidText(field)) continue;
    const maxItems = dto.maxItems.get(key);
    if (maxItems !== undefined && Array.isArray(field) && field.length > maxItems) {
      shaped.details.push({
        field: path,
        code: 'too_long',
        message: `${path} must contain at most ${maxItems} items.`,
      });
      // Present all the same: a required list that is too long is a 422, not a missing field.
      shaped.attachments.push({ at: [...at, key], value: [] });
      continue;
    }
    const nested = dto.nested.get(key);
    if (nested) working[key] = shapeNested(nested(), field, path, [...at, key], shaped);
    else if (typeof field !== 'object' || field === null) working[key] = field;
    else shaped.attachments.push({ at: [...at, key], value: field });
  }
  return working;
}

/** A nested DTO's value: its objects cut to its shape, at any depth of lists. */
function shapeNested(
  dto: DtoShape,
  field: unknown,
  path: string,
  at: (string | number)[],
  shaped: Shaped,
): unknown {
  if (Array.isArray(field)) {
    return field.map((item, index) =>
      shapeNested(dto, item, childPath(path, index), [...at, index], shaped),
    );
  }
  return isPlainObject(field) ? shape(dto, field, path, at, shaped) : field;
}

/** Puts a set-aside value back where it belongs, if class-transformer kept that place. */
function attach(instance: object, at: (string | number)[], value: unknown): void {
  let target: unknown = instance;
  for (const segment of at.slice(0, -1)) {
    if (typeof target !== 'object' || target === null) return;
    target = (target as Record<string | number, unknown>)[segment];
  }
  if (typeof target === 'object' && target !== null) {
    (target as Record<string | number, unknown>)[at[at.length - 1]] = value;
  }
}

export const REQUIRED = 'isDefined';

/** class-validator constraint name → the `code` of a 422 detail entry. */
const DETAIL_CODES: Record<string, string> = {
  isEmail: 'invalid_format',
  isMailbox: 'invalid_format',
  isIsoDate: 'invalid_format',
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
  maxKeys: 'too_many_keys',
  maxJsonBytes: 'too_large',
  isNotEmpty: 'too_short',
  min: 'out_of_range',
  max: 'out_of_range',
  dateInRange: 'out_of_range',
  isIn: 'invalid_value',
  whitelistValidation: 'unknown_field',
};

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

const PRIORITY = [
  'invalid_characters',
  'missing',
  'unknown_field',
  'invalid_type',
  'invalid_format',
];

function priority(code: string): number {
  const index = PRIORITY.indexOf(code);
  return index === -1 ? PRIORITY.length : index;
}

/**
 * One entry per field, the most basic failure kept; a field whose strings hold invalid
 * characters is reported for that, not for what validators made of them.
 */
function merge(groups: ErrorDetail[][]): ErrorDetail[] {
  const byField = new Map<string, ErrorDetail>();
  for (const detail of groups.flat()) {
    const kept = byField.get(detail.field);
    if (!kept || priority(detail.code) < priority(kept.code)) byField.set(detail.field, detail);
  }
  return [...byField.values()];
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isBuiltIn(type: unknown): boolean {
  return [String, Number, Boolean, Array, Object].includes(type as never);
}
