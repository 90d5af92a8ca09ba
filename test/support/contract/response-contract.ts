import Ajv2020, { ErrorObject, ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { isEmail } from 'class-validator';

type Json = Record<string, unknown>;

/** One HTTP answer as the server sent it. */
export interface ObservedResponse {
  method: string;
  /** Path and query, as requested. */
  url: string;
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: Buffer;
}

/** What checking one answer found. */
export type Verdict =
  | { kind: 'validated'; operation: string }
  | { kind: 'unknown-route' }
  | { kind: 'out-of-scope' }
  | { kind: 'violation'; operation: string; problems: string[] };

interface Operation {
  id: string;
  method: string;
  template: string;
  pattern: RegExp;
  responses: Record<string, Json>;
}

const HUMAN_OPERATION_ID = /^[a-z][a-zA-Z0-9]*$/;
const DOCUMENT_ID = 'openapi';

/**
 * Checks HTTP answers against the OpenAPI document the API serves: the operation must be
 * documented, the status listed for it, every required header present and every header and
 * JSON body valid against its schema (JSON Schema 2020-12, as OpenAPI 3.1 uses). Paths outside
 * the document's prefix (the dashboard's, tracking links, provider webhooks) are not its
 * business; a path under it that matches no operation may only be refused with an error.
 */
export class ResponseContract {
  private readonly ajv: Ajv2020;
  private readonly operations: Operation[] = [];
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(
    private readonly document: Json,
    private readonly prefix = '/v1/',
  ) {
    this.ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
    addFormats(this.ajv);
    // The API accepts what class-validator's isEmail accepts, internationalised addresses too.
    this.ajv.addFormat('idn-email', (value: string) => isEmail(value));
    this.ajv.addSchema(document, DOCUMENT_ID);
    const paths = document.paths as Record<string, Record<string, Json>>;
    for (const [template, item] of Object.entries(paths)) {
      for (const [method, operation] of Object.entries(item)) {
        this.operations.push({
          id: String(operation.operationId),
          method: method.toUpperCase(),
          template,
          pattern: new RegExp(`^${template.replace(/\{\w+\}/g, '[^/]+')}$`),
          responses: operation.responses as Record<string, Json>,
        });
      }
    }
    // A literal segment wins over a parameter (`/x/send` before `/x/{id}`).
    this.operations.sort((a, b) => paramCount(a.template) - paramCount(b.template));
    this.compileAll();
  }

  /**
   * Compiles every validator up front. Checks run inside the server under test, so a schema
   * compiled on first sight would stall its event loop in the middle of the test (the fuzz
   * test's /health budget noticed).
   */
  private compileAll(): void {
    this.validator('#/components/schemas/Error');
    for (const operation of this.operations) {
      for (const [status, documented] of Object.entries(operation.responses)) {
        const pointer = responsePointer(operation, status);
        for (const name of Object.keys(documented.headers ?? {})) {
          this.validator(`${pointer}/headers/${escapePointer(name)}/schema`);
        }
        if ((documented.content as Record<string, Json> | undefined)?.['application/json']) {
          this.validator(`${pointer}/content/application~1json/schema`);
        }
      }
    }
  }

  check(response: ObservedResponse): Verdict {
    const path = response.url.split('?')[0];
    const method = response.method === 'HEAD' ? 'GET' : response.method;
    const operation = this.operations.find(
      (candidate) => candidate.method === method && candidate.pattern.test(path),
    );
    if (!operation) {
      if (!path.startsWith(this.prefix)) return { kind: 'out-of-scope' };
      const problems = this.checkUnknownRoute(response);
      return problems.length
        ? { kind: 'violation', operation: `(no operation for ${method} ${path})`, problems }
        : { kind: 'unknown-route' };
    }
    const problems = this.checkOperation(operation, response);
    return problems.length
      ? { kind: 'violation', operation: operation.id, problems }
      : { kind: 'validated', operation: operation.id };
  }

  /** No operation of the document matches: only an error answer in the envelope is right. */
  private checkUnknownRoute(response: ObservedResponse): string[] {
    if (response.status < 400) {
      return [
        `status ${response.status} from an operation the document does not describe ` +
          '(document the route with @ApiEndpoint)',
      ];
    }
    return this.checkBody('#/components/schemas/Error', response, 'body');
  }

  private checkOperation(operation: Operation, response: ObservedResponse): string[] {
    if (!HUMAN_OPERATION_ID.test(operation.id)) {
      return [`${operation.id} is not documented: decorate the route with @ApiEndpoint`];
    }
    const documented = operation.responses[String(response.status)];
    if (!documented) {
      return [
        `status ${response.status} is not documented for ${operation.id} ` +
          `(documented: ${Object.keys(operation.responses).join(', ')})`,
      ];
    }
    const pointer = responsePointer(operation, String(response.status));
    const problems = this.checkHeaders(documented, pointer, response);
    const content = documented.content as Record<string, Json> | undefined;
    if (response.method === 'HEAD') return problems;
    const textType = Object.keys(content ?? {}).find((type) => type !== 'application/json');
    if (content?.['application/json']) {
      problems.push(
        ...this.checkBody(`${pointer}/content/application~1json/schema`, response, 'body'),
      );
    } else if (textType) {
      // A download (CSV): the media type must be the documented one; the body is text.
      const type = String(response.headers['content-type'] ?? '');
      if (!type.startsWith(textType)) {
        problems.push(`Content-Type ${type || '(none)'} where the document describes ${textType}`);
      }
    } else if (response.body.length > 0) {
      problems.push(`a body of ${response.body.length} bytes where the document describes none`);
    }
    return problems;
  }

  private checkHeaders(documented: Json, pointer: string, response: ObservedResponse): string[] {
    const problems: string[] = [];
    const headers = (documented.headers ?? {}) as Record<string, Json>;
    for (const [name, header] of Object.entries(headers)) {
      const raw = response.headers[name.toLowerCase()];
      if (raw === undefined) {
        if (header.required === true) problems.push(`header ${name} is required but absent`);
        continue;
      }
      const value = coerceHeader(String(raw), header.schema as Json);
      const validate = this.validator(`${pointer}/headers/${escapePointer(name)}/schema`);
      if (!validate(value)) problems.push(...describe(validate.errors, `header ${name}`, value));
    }
    return problems;
  }

  private checkBody(pointer: string, response: ObservedResponse, label: string): string[] {
    const type = String(response.headers['content-type'] ?? '');
    if (!type.startsWith('application/json')) {
      return [`Content-Type ${type || '(none)'} where the document describes application/json`];
    }
    let body: unknown;
    try {
      body = JSON.parse(response.body.toString('utf8'));
    } catch {
      return ['the body is not JSON'];
    }
    const validate = this.validator(pointer);
    return validate(body) ? [] : describe(validate.errors, label, body);
  }

  private validator(pointer: string): ValidateFunction {
    let validate = this.validators.get(pointer);
    if (!validate) {
      validate = this.ajv.compile({ $ref: `${DOCUMENT_ID}${pointer}` });
      this.validators.set(pointer, validate);
    }
    return validate;
  }

  /** The operation ids of the document, for coverage figures. */
  operationIds(): string[] {
    return this.operations.filter((op) => op.template.startsWith(this.prefix)).map((op) => op.id);
  }

  get source(): Json {
    return this.document;
  }
}

function responsePointer(operation: Operation, status: string): string {
  return `#/paths/${escapePointer(operation.template)}/${operation.method.toLowerCase()}/responses/${status}`;
}

function paramCount(template: string): number {
  return (template.match(/\{/g) ?? []).length;
}

function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** Header values are text; an integer schema means a decimal number in it. */
function coerceHeader(raw: string, schema: Json | undefined): unknown {
  return schema?.type === 'integer' && /^-?\d+$/.test(raw) ? Number(raw) : raw;
}

/** Ajv's findings as lines a person reads: where, what, and the value found there. */
function describe(
  errors: ErrorObject[] | null | undefined,
  label: string,
  root: unknown,
): string[] {
  return (errors ?? []).slice(0, 10).map((error) => {
    const where = `${label}${error.instancePath.replace(/\//g, '.')}`;
    const found = JSON.stringify(valueAt(root, error.instancePath));
    return `${where} ${error.message ?? 'is invalid'}${paramsOf(error)} (found ${truncate(found)})`;
  });
}

function paramsOf(error: ErrorObject): string {
  const params = error.params as Json;
  if (error.keyword === 'enum') return `: ${JSON.stringify(params.allowedValues)}`;
  if (error.keyword === 'additionalProperties') return `: ${String(params.additionalProperty)}`;
  return '';
}

function valueAt(root: unknown, pointer: string): unknown {
  let value = root;
  for (const key of pointer.split('/').slice(1)) {
    value = (value as Json | undefined)?.[key.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return value;
}

function truncate(text: string | undefined): string {
  if (text === undefined) return 'nothing';
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}
