// The load generator of `npm run bench:load`, forked by run.ts so its CPU is its own process's
// (counted apart as `load`): one autocannon instance per route of the mixed workload, all at
// once for the same duration, their connections adding up to the requests in flight. Gets its
// orders as JSON in argv[2], sends the per-route results back over IPC and exits when told (so
// its CPU time can be read while it still exists).

import { withClient } from '../support/stores';

// autocannon ships no types; this is the part of its programmatic API used here.
interface CannonRequest {
  method: string;
  path: string;
  body?: string;
}
interface CannonOptions {
  url: string;
  connections: number;
  duration: number;
  timeout: number;
  headers: Record<string, string>;
  requests: (CannonRequest & { setupRequest?: (request: CannonRequest) => CannonRequest })[];
}
interface CannonResult {
  requests: { total: number };
  latency: { p50: number; p99: number; max: number };
  errors: number;
  timeouts: number;
  statusCodeStats: Record<string, { count: number }>;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const autocannon = require('autocannon') as (options: CannonOptions) => Promise<CannonResult>;

export interface LoadOrders {
  base: string;
  key: string;
  databaseUrl: string;
  accountId: string;
  campaignId: string;
  seconds: number;
  /** Connections (requests in flight) per route; they add up to the total. */
  connections: Record<RouteName, number>;
}

export type RouteName = 'create' | 'patch' | 'list' | 'batch' | 'transactional' | 'stats';

export interface RouteResult {
  route: RouteName;
  label: string;
  requests: number;
  p50: number;
  p99: number;
  max: number;
  /** Responses by status code. */
  statuses: Record<string, number>;
  errors: number;
  timeouts: number;
}

const BATCH_SIZE = 50;
let counter = 0;
const unique = () => `${process.pid}-${Date.now().toString(36)}-${(counter++).toString(36)}`;
const pick = <T>(items: T[]) => items[Math.floor(Math.random() * items.length)];

/** What each route sends: a new request per call, so every create is a new subscriber. */
function routes(orders: LoadOrders, ids: string[]) {
  const json = (method: string, path: string, body: () => unknown) => ({
    method,
    path,
    setupRequest: (request: CannonRequest) => ({ ...request, body: JSON.stringify(body()) }),
  });
  return {
    create: {
      label: 'POST /v1/subscribers',
      request: json('POST', '/v1/subscribers', () => ({
        email: `load-${unique()}@example.com`,
        first_name: 'Load',
        tags: ['load'],
      })),
    },
    patch: {
      label: 'PATCH /v1/subscribers/{id}',
      request: {
        method: 'PATCH',
        path: `/v1/subscribers/${ids[0]}`,
        setupRequest: (request: CannonRequest) => ({
          ...request,
          path: `/v1/subscribers/${pick(ids)}`,
          body: JSON.stringify({ last_name: `Patched ${unique()}` }),
        }),
      },
    },
    list: {
      label: 'GET /v1/subscribers?limit=50',
      request: { method: 'GET', path: '/v1/subscribers?limit=50' },
    },
    batch: {
      label: `POST /v1/subscribers/batch (${BATCH_SIZE})`,
      // Half new people, half updates of seeded ones: an import through the API.
      request: json('POST', '/v1/subscribers/batch', () => ({
        subscribers: Array.from({ length: BATCH_SIZE }, (_, i) =>
          i % 2 === 0
            ? { email: `batch-${unique()}@example.com`, first_name: 'Batch' }
            : {
                email: `subscriber${1 + Math.floor(Math.random() * ids.length)}@example.com`,
                city: 'Leeds',
              },
        ),
      })),
    },
    transactional: {
      label: 'POST /v1/transactional/send',
      request: json('POST', '/v1/transactional/send', () => ({
        to: `receipt-${unique()}@example.net`,
        from: 'Acme Shop <shop@acme.example>',
        subject: 'Your receipt',
        text: 'Thanks for your order.',
        html: '<p>Thanks for your order.</p>',
      })),
    },
    stats: {
      label: 'GET /v1/campaigns/{id}/stats',
      request: { method: 'GET', path: `/v1/campaigns/${orders.campaignId}/stats` },
    },
  } satisfies Record<RouteName, { label: string; request: CannonOptions['requests'][number] }>;
}

async function main(): Promise<void> {
  const orders = JSON.parse(process.argv[2]) as LoadOrders;
  const { rows } = await withClient(orders.databaseUrl, (db) =>
    db.query<{ id: string }>(
      `SELECT id FROM subscribers WHERE account_id = $1 ORDER BY id LIMIT 2000`,
      [orders.accountId],
    ),
  );
  const ids = rows.map((row) => row.id);
  const workload = routes(orders, ids);
  const results = await Promise.all(
    (Object.keys(workload) as RouteName[])
      .filter((route) => orders.connections[route] > 0)
      .map(async (route): Promise<RouteResult> => {
        const out = await autocannon({
          url: orders.base,
          connections: orders.connections[route],
          duration: orders.seconds,
          // A request slower than this counts as a timeout: the contract's bound is 5 s.
          timeout: 10,
          headers: { authorization: `Bearer ${orders.key}`, 'content-type': 'application/json' },
          requests: [workload[route].request],
        });
        return {
          route,
          label: workload[route].label,
          requests: out.requests.total,
          p50: out.latency.p50,
          p99: out.latency.p99,
          max: out.latency.max,
          statuses: Object.fromEntries(
            Object.entries(out.statusCodeStats).map(([code, { count }]) => [code, count]),
          ),
          errors: out.errors,
          timeouts: out.timeouts,
        };
      }),
  );
  // Stays until run.ts has read this process's CPU time, then goes.
  process.once('message', () => process.disconnect());
  process.send!(results);
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
