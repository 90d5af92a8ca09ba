import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { ObservedResponse, ResponseContract, Verdict } from './response-contract';

/** A response that broke the document, as a test failure shows it. */
export interface Violation {
  request: string;
  status: number;
  operation: string;
  problems: string[];
}

/** What this test file's servers answered, by verdict (for the figures in the report). */
export const contractTally: Record<Verdict['kind'], number> = {
  validated: 0,
  'unknown-route': 0,
  'out-of-scope': 0,
  violation: 0,
};
export const operationsSeen = new Set<string>();
const pending: Violation[] = [];

/**
 * Makes every response of this server a contract test: each answer, whatever client asked
 * (supertest, fetch, a raw socket), is checked against the served OpenAPI document as it
 * leaves, and a mismatch is kept for the running test to fail on (see fail-on-violations.ts).
 */
export function watchResponses(server: Server, contract: ResponseContract): void {
  const handlers = server.listeners('request') as ((
    req: IncomingMessage,
    res: ServerResponse,
  ) => void)[];
  server.removeAllListeners('request');
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    observe(req, res, contract);
    for (const handler of handlers) handler.call(server, req, res);
  });
}

/** Violations since the last call, cleared. */
export function takeViolations(): Violation[] {
  return pending.splice(0, pending.length);
}

function observe(req: IncomingMessage, res: ServerResponse, contract: ResponseContract): void {
  const method = req.method ?? 'GET';
  const url = req.url ?? '/';
  const chunks: Buffer[] = [];
  let headHeaders: Record<string, unknown> = {};
  const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => ServerResponse;
  const write = res.write.bind(res) as (...args: unknown[]) => boolean;
  const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
  res.writeHead = (...args: unknown[]) => {
    const headers = args.find((arg, index) => index > 0 && typeof arg === 'object' && arg);
    if (headers && !Array.isArray(headers)) headHeaders = headers as Record<string, unknown>;
    return writeHead(...args);
  };
  res.write = ((chunk: unknown, ...rest: unknown[]) => {
    collect(chunks, chunk);
    return write(chunk, ...rest);
  }) as typeof res.write;
  res.end = ((chunk?: unknown, ...rest: unknown[]) => {
    if (typeof chunk !== 'function') collect(chunks, chunk);
    // Checked before the last bytes leave, so the test awaiting them sees the verdict.
    record(contract, {
      method,
      url,
      status: res.statusCode,
      headers: lowerCased({ ...res.getHeaders(), ...headHeaders }),
      body: Buffer.concat(chunks),
    });
    return end(chunk, ...rest);
  }) as typeof res.end;
}

function record(contract: ResponseContract, response: ObservedResponse): void {
  const verdict = contract.check(response);
  contractTally[verdict.kind] += 1;
  if (verdict.kind === 'validated') operationsSeen.add(`${verdict.operation} ${response.status}`);
  if (verdict.kind !== 'violation') return;
  pending.push({
    request: `${response.method} ${response.url}`,
    status: response.status,
    operation: verdict.operation,
    problems: verdict.problems,
  });
}

function collect(chunks: Buffer[], chunk: unknown): void {
  if (typeof chunk === 'string') chunks.push(Buffer.from(chunk));
  else if (chunk instanceof Uint8Array) chunks.push(Buffer.from(chunk));
}

function lowerCased(headers: Record<string, unknown>): ObservedResponse['headers'] {
  const out: ObservedResponse['headers'] = {};
  for (const [name, value] of Object.entries(headers)) {
    out[name.toLowerCase()] = value as string | string[] | number | undefined;
  }
  return out;
}
