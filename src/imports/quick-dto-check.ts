import { TransformationType } from 'class-transformer';
import { defaultMetadataStorage } from 'class-transformer/cjs/storage';
import { getMetadataStorage, ValidationArguments, ValidationTypes } from 'class-validator';
import { describeDto } from '../platform/errors/dto-shape';
import { containsInvalidText } from '../platform/validation/text-integrity';

type Condition = (object: object, value: unknown) => boolean;

interface Rule {
  validate: (value: unknown, args: ValidationArguments) => unknown;
  constraints: unknown[];
  each: boolean;
  validateIf?: Condition;
}

interface FieldRules {
  conditions: Condition[];
  rules: Rule[];
  transforms: { transformFn: (params: never) => unknown }[];
  maxItems?: number;
  /** Has a rule this check does not run (a nested DTO, an async constraint): left to the DTO. */
  unmodelled: boolean;
}

/**
 * A DTO's own rules, gathered once from class-validator's metadata and run straight on a plain
 * body: the same constraint functions, with the same arguments, in the same conditions, but
 * without class-transformer's copy and class-validator's metadata look-ups on every call, which
 * were nine tenths of the cost of checking a CSV row.
 *
 * It only ever accepts. A body that breaks a rule, or holds anything this check does not model
 * (a key outside the DTO, a nested DTO, an async rule, invalid characters), gets `undefined`
 * and goes to `checkAgainstDto`, whose details are the ones reported. So whatever it accepts,
 * the DTO accepts, with the same values (a differential test holds it to that); rows with errors
 * are rare, and pay the full price.
 */
export class QuickDtoCheck<T extends object> {
  private readonly fields = new Map<string, FieldRules>();
  private readonly targetName: string;

  constructor(private readonly dto: new () => T) {
    this.targetName = dto.name;
    const storage = getMetadataStorage();
    // The very call `validate` makes: no groups, `always` off, no strict groups.
    const metadata = storage.getTargetValidationMetadatas(dto, undefined as never, false, false);
    const shape = describeDto(dto);
    for (const entry of metadata) {
      let field = this.fields.get(entry.propertyName);
      if (!field) {
        field = {
          conditions: [],
          rules: [],
          transforms: defaultMetadataStorage
            .findTransformMetadatas(dto, entry.propertyName, TransformationType.PLAIN_TO_CLASS)
            .filter((transform) => !transform.options?.groups?.length),
          maxItems: shape.maxItems.get(entry.propertyName),
          unmodelled: false,
        };
        this.fields.set(entry.propertyName, field);
      }
      if (entry.type === ValidationTypes.CONDITIONAL_VALIDATION) {
        field.conditions.push(entry.constraints[0] as Condition);
      } else if (
        entry.type === ValidationTypes.CUSTOM_VALIDATION ||
        entry.type === ValidationTypes.IS_DEFINED
      ) {
        for (const constraint of storage.getTargetValidatorConstraints(entry.constraintCls)) {
          if (constraint.async) field.unmodelled = true;
          const instance = constraint.instance as { validate: Rule['validate'] };
          field.rules.push({
            validate: (value, args) => instance.validate(value, args),
            constraints: entry.constraints,
            each: entry.each === true,
            validateIf: (entry as { validateIf?: Condition }).validateIf,
          });
        }
      } else {
        field.unmodelled = true;
      }
    }
  }

  /** The validated instance, as `checkAgainstDto` would make it; undefined to ask it instead. */
  accept(body: Record<string, unknown>): T | undefined {
    if (this.fields.size === 0 || containsInvalidText(body)) return undefined;
    const instance = new this.dto() as Record<string, unknown>;
    for (const key of Object.keys(body)) {
      const field = this.fields.get(key);
      const value = body[key];
      if (!field || field.unmodelled || value === undefined) return undefined;
      if (typeof value === 'object' && value !== null) {
        // Objects and lists are kept as parsed, never copied nor transformed.
        if (Array.isArray(value) && field.maxItems !== undefined && value.length > field.maxItems) {
          return undefined;
        }
        instance[key] = value;
      } else {
        let transformed: unknown = value;
        for (const { transformFn } of field.transforms) {
          transformed = (transformFn as (params: object) => unknown)({
            value: transformed,
            key,
            obj: body,
            type: TransformationType.PLAIN_TO_CLASS,
            options: {},
          });
        }
        instance[key] = transformed;
      }
    }
    // One arguments object for every rule: they read it while they run, and keep nothing.
    const args: ValidationArguments = {
      targetName: this.targetName,
      property: '',
      object: instance,
      value: undefined,
      constraints: [],
    };
    for (const [key, field] of this.fields) {
      const value = instance[key];
      if (!allHold(field.conditions, instance, value)) continue;
      if (field.unmodelled) return undefined;
      args.property = key;
      args.value = value;
      for (const rule of field.rules) {
        if (rule.validateIf && !rule.validateIf(instance, value)) continue;
        args.constraints = rule.constraints;
        if (rule.each && Array.isArray(value)) {
          for (const item of value) if (!this.passes(rule, item, args)) return undefined;
        } else if (!this.passes(rule, value, args)) {
          return undefined;
        }
      }
    }
    return instance as T;
  }

  private passes(rule: Rule, value: unknown, args: ValidationArguments): boolean {
    const result = rule.validate(value, args);
    // An async answer is not waited for: the DTO's own run will.
    return result === true;
  }
}

function allHold(conditions: Condition[], object: object, value: unknown): boolean {
  for (const condition of conditions) if (!condition(object, value)) return false;
  return true;
}
