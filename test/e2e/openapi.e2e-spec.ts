import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import request from 'supertest';
import ts from 'typescript';
import { ROUTE_SCOPES } from '../../src/auth/scopes';
import { ResponseContract } from '../support/contract/response-contract';
import { ROOT } from '../support/processes';
import { TestApi, TestEnv } from '../support/test-env';

type Json = Record<string, unknown>;
type Operations = Record<string, Record<string, Json>>;

const run = promisify(execFile);
const CLIENT_DIR = join(ROOT, 'clients/typescript');
const RATE_HEADERS = {
  'ratelimit-limit': '10',
  'ratelimit-remaining': '9',
  'ratelimit-reset': '60',
};

describe('the OpenAPI document', () => {
  let env: TestEnv;
  let api: TestApi;
  let doc: Json;
  let contract: ResponseContract;
  const v1 = () => Object.entries(doc.paths as Operations).filter(([p]) => p.startsWith('/v1/'));
  const operations = () =>
    v1().flatMap(([path, item]) =>
      Object.entries(item).map(([method, operation]) => ({ path, method, operation })),
    );

  beforeAll(async () => {
    env = await TestEnv.create();
    api = await TestApi.start(env, { workers: false });
    doc = (await request(api.server).get('/openapi.json').expect(200)).body as Json;
    contract = new ResponseContract(doc);
  });
  afterAll(async () => {
    await api?.close();
    await env?.dispose();
  });

  it('describes every /v1 route of the scope table, each with an id, a summary and its scope', () => {
    const documented = operations().map(
      ({ path, method }) => `${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`,
    );
    expect(documented.sort()).toEqual(Object.keys(ROUTE_SCOPES).sort());
    const ids = new Set<string>();
    for (const { path, method, operation } of operations()) {
      const where = `${method.toUpperCase()} ${path}`;
      expect({ where, id: operation.operationId }).toEqual({
        where,
        id: expect.stringMatching(/^[a-z][a-zA-Z]+$/),
      });
      ids.add(String(operation.operationId));
      expect({ where, summary: operation.summary }).toEqual({ where, summary: expect.any(String) });
      expect(operation['x-required-scope']).toBe(
        ROUTE_SCOPES[`${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`],
      );
      expect(operation.security).toEqual([{ apiKey: [] }]);
    }
    expect(ids.size).toBe(operations().length);
    const schemes = (doc.components as Json).securitySchemes;
    expect(schemes).toEqual({
      apiKey: { type: 'http', scheme: 'bearer', description: expect.any(String) },
    });
  });

  it('shows an example for every operation that its own schema accepts', () => {
    for (const { path, method, operation } of operations()) {
      const responses = operation.responses as Record<string, Json>;
      const success = Object.keys(responses).find((status) => status < '300')!;
      const content = responses[success].content as Record<string, Json> | undefined;
      const media = content?.['application/json'];
      // A download (text/csv) is text: its example is any body of that type.
      const type = media
        ? 'application/json'
        : (Object.keys(content ?? {})[0] ?? 'application/json');
      const body = media ? Buffer.from(JSON.stringify(media.example)) : Buffer.alloc(0);
      if (media) expect({ path, example: media.example }).not.toEqual({ path, example: undefined });
      const verdict = contract.check({
        method: method.toUpperCase(),
        url: path,
        status: Number(success),
        headers: { ...RATE_HEADERS, 'content-type': type },
        body,
      });
      expect({ path, method, verdict }).toEqual({
        path,
        method,
        verdict: { kind: 'validated', operation: operation.operationId },
      });
    }
  });

  it('types every property (a nullable field keeps its type)', () => {
    const untyped: string[] = [];
    const schemas = (doc.components as Json).schemas as Record<string, Json>;
    for (const [name, schema] of Object.entries(schemas)) {
      for (const [field, property] of Object.entries(
        (schema.properties ?? {}) as Record<string, Json>,
      )) {
        const hasShape =
          property.type !== undefined || property.$ref || property.allOf || property.anyOf;
        const emptyObject =
          [property.type].flat().includes('object') &&
          !property.properties &&
          property.additionalProperties === undefined;
        if (!hasShape || emptyObject) untyped.push(`${name}.${field}`);
      }
    }
    expect(untyped).toEqual([]);
  });

  it('refuses answers that break it: a wrong type, a missing header, an undocumented status', () => {
    const json = { ...RATE_HEADERS, 'content-type': 'application/json' };
    const wrongType = contract.check({
      method: 'GET',
      url: '/v1/campaigns?limit=1',
      status: 200,
      headers: json,
      body: Buffer.from(JSON.stringify({ data: [], next_cursor: 7 })),
    });
    expect(wrongType).toEqual({
      kind: 'violation',
      operation: 'listCampaigns',
      problems: ['body.next_cursor must be string,null (found 7)'],
    });
    const noHeader = contract.check({
      method: 'DELETE',
      url: '/v1/segments/x',
      status: 204,
      headers: { 'ratelimit-limit': '10', 'ratelimit-remaining': '9' },
      body: Buffer.alloc(0),
    });
    expect(noHeader).toMatchObject({ problems: ['header RateLimit-Reset is required but absent'] });
    const undocumented = contract.check({
      method: 'GET',
      url: '/v1/subscribers',
      status: 409,
      headers: json,
      body: Buffer.from('{"error":{"code":"conflict","message":"x"}}'),
    });
    expect(undocumented).toMatchObject({
      problems: [expect.stringContaining('status 409 is not documented for listSubscribers')],
    });
    const unknownOperation = contract.check({
      method: 'GET',
      url: '/v1/nothing-here',
      status: 200,
      headers: json,
      body: Buffer.from('{}'),
    });
    expect(unknownOperation.kind).toBe('violation');
  });

  describe('the TypeScript client generated from it', () => {
    const work = join(ROOT, 'var', `client-check-${process.pid}`);
    afterAll(() => rmSync(work, { recursive: true, force: true }));

    it('is the one published in clients/typescript, and the example program compiles against it', async () => {
      mkdirSync(work, { recursive: true });
      writeFileSync(join(work, 'openapi.json'), JSON.stringify(doc));
      await run(
        join(ROOT, 'node_modules/.bin/openapi-typescript'),
        [join(work, 'openapi.json'), '--output', join(work, 'herald-api.d.ts')],
        { cwd: ROOT },
      );
      const generated = readFileSync(join(work, 'herald-api.d.ts'), 'utf8');
      // A stale client means `npm run client:generate` was not run after the document changed.
      expect(generated).toBe(readFileSync(join(CLIENT_DIR, 'herald-api.d.ts'), 'utf8'));

      copyFileSync(join(CLIENT_DIR, 'example.ts'), join(work, 'example.ts'));
      const program = ts.createProgram([join(work, 'example.ts')], {
        strict: true,
        noEmit: true,
        target: ts.ScriptTarget.ES2023,
        lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
        module: ts.ModuleKind.CommonJS,
        moduleResolution: ts.ModuleResolutionKind.Bundler,
        esModuleInterop: true,
        types: ['node'],
        typeRoots: [join(ROOT, 'node_modules/@types')],
      });
      const errors = ts
        .getPreEmitDiagnostics(program)
        .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      expect(errors).toEqual([]);

      // The example calls every operation, so each one's types are exercised.
      const example = readFileSync(join(CLIENT_DIR, 'example.ts'), 'utf8');
      const missing = operations()
        .map(({ path, method }) => `.${method.toUpperCase()}('${path}'`)
        .filter((call) => !example.includes(call));
      expect(missing).toEqual([]);
    }, 120_000);
  });
});
