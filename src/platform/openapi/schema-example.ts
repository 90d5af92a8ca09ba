type Schema = Record<string, unknown>;

const FORMAT_EXAMPLES: Record<string, string> = {
  'date-time': '2026-11-25T09:30:00.000Z',
  date: '2026-11-25',
  uuid: '0193a6f2-7c1e-7d3a-9b2f-4e5d6c7b8a90',
  email: 'ada@example.com',
  'idn-email': 'ada@example.com',
  uri: 'https://example.com/',
};

/**
 * A plausible value for a schema, built from the examples its properties carry (else from
 * formats, enums and types), so every operation shows a complete example body that a test
 * checks against the schema itself.
 */
export function exampleOf(schema: Schema, schemas: Record<string, Schema>, depth = 0): unknown {
  if (depth > 8) return undefined;
  if (schema.example !== undefined) return schema.example;
  if (typeof schema.$ref === 'string') {
    return exampleOf(schemas[schema.$ref.split('/').pop()!] ?? {}, schemas, depth + 1);
  }
  for (const combinator of ['allOf', 'anyOf', 'oneOf']) {
    const members = schema[combinator] as Schema[] | undefined;
    if (members?.length) return exampleOf(members[0], schemas, depth + 1);
  }
  if (Array.isArray(schema.enum) && schema.enum.length) return schema.enum[0];
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type];
  const type = types.find((t) => t !== 'null');
  switch (type) {
    case 'object': {
      const properties = (schema.properties ?? {}) as Record<string, Schema>;
      const value: Record<string, unknown> = {};
      for (const [name, property] of Object.entries(properties)) {
        value[name] = exampleOf(property, schemas, depth + 1);
      }
      return value;
    }
    case 'array':
      return schema.items ? [exampleOf(schema.items as Schema, schemas, depth + 1)] : [];
    case 'integer':
      return typeof schema.minimum === 'number' ? schema.minimum : 0;
    case 'number':
      return 0;
    case 'boolean':
      return true;
    case 'string':
      return FORMAT_EXAMPLES[schema.format as string] ?? 'string';
    default:
      return types.includes('null') ? null : {};
  }
}
