import { getMetadataStorage } from 'class-validator';

type Schema = Record<string, unknown>;
type DtoClass = abstract new (...args: never[]) => unknown;

/**
 * Copies the limits the request validators enforce (class-validator decorators on the DTOs)
 * into the component schemas of the same name, so the document states exactly what the API
 * refuses and cannot drift from it: a new `@MaxLength` shows up as `maxLength` by itself.
 */
export function applyValidationLimits(schemas: Record<string, Schema>): void {
  const storage = getMetadataStorage() as unknown as {
    validationMetadatas: Map<DtoClass, unknown[]>;
    getTargetValidationMetadatas(
      target: DtoClass,
      schema: string,
      always: boolean,
      strict: boolean,
    ): Rule[];
  };
  for (const target of storage.validationMetadatas.keys()) {
    const schema = schemas[target.name];
    const properties = schema?.properties as Record<string, Schema> | undefined;
    if (!properties) continue;
    for (const rule of storage.getTargetValidationMetadatas(target, '', true, false)) {
      const property = properties[rule.propertyName];
      if (property) applyRule(property, rule);
    }
  }
}

interface Rule {
  name?: string;
  propertyName: string;
  constraints?: unknown[];
  each?: boolean;
}

function applyRule(property: Schema, rule: Rule): void {
  const keywords = keywordsOf(rule);
  if (!keywords) return;
  const target = rule.each && property.items ? (property.items as Schema) : property;
  if (target.$ref) return;
  for (const [keyword, value] of Object.entries(keywords)) target[keyword] ??= value;
}

/** The JSON Schema keywords a validator stands for (none when it has no counterpart). */
function keywordsOf(rule: Rule): Schema | undefined {
  const [first] = rule.constraints ?? [];
  switch (rule.name) {
    case 'maxLength':
      return { maxLength: first };
    case 'minLength':
      return { minLength: first };
    case 'isNotEmpty':
      return { minLength: 1 };
    case 'arrayMaxSize':
      return { maxItems: first };
    case 'arrayMinSize':
      return { minItems: first };
    case 'maxKeys':
      return { maxProperties: first };
    case 'min':
      return { minimum: first };
    case 'max':
      return { maximum: first };
    case 'isInt':
      return { type: 'integer' };
    case 'isIn':
      return { enum: first };
    case 'isUuid':
      return { format: 'uuid' };
    case 'matches':
      return first instanceof RegExp && !first.flags ? { pattern: first.source } : undefined;
    default:
      return undefined;
  }
}
