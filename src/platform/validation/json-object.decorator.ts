import { applyDecorators } from '@nestjs/common';
import { registerDecorator, ValidationArguments } from 'class-validator';

export interface JsonObjectLimits {
  /** Keys at its top level. */
  maxKeys?: number;
  /** Bytes of its JSON text (UTF-8). */
  maxBytes?: number;
}

/**
 * A JSON object (not an array, not null) within the given limits. Each limit is its own
 * constraint, so the 422 detail says which one failed (`invalid_type`, `too_many_keys`,
 * `too_large`).
 */
export function JsonObject(limits: JsonObjectLimits = {}): PropertyDecorator {
  const decorators: PropertyDecorator[] = [
    constraint('isObject', (value) => isPlainObject(value), '$property must be a JSON object'),
  ];
  const { maxKeys, maxBytes } = limits;
  if (maxKeys !== undefined) {
    decorators.push(
      constraint(
        'maxKeys',
        (value) => !isPlainObject(value) || Object.keys(value).length <= maxKeys,
        `$property must have at most ${maxKeys} keys`,
      ),
    );
  }
  if (maxBytes !== undefined) {
    decorators.push(
      constraint(
        'maxJsonBytes',
        (value) => !isPlainObject(value) || jsonBytes(value) <= maxBytes,
        `$property must take at most ${maxBytes / 1024} KiB as JSON`,
      ),
    );
  }
  return applyDecorators(...decorators);
}

function constraint(
  name: string,
  validate: (value: unknown) => boolean,
  message: string,
): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name,
      target: target.constructor,
      propertyName: propertyName as string,
      options: {
        message: (args: ValidationArguments) => message.replace('$property', args.property),
      },
      validator: { validate },
    });
}

function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value), 'utf8');
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
