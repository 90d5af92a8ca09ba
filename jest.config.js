// Nest 12 ships ESM only; Jest on Node 20 cannot require ESM, so swc transpiles both our
// TypeScript and the @nestjs packages to CommonJS.
const swcTs = {
  jsc: {
    parser: { syntax: 'typescript', decorators: true },
    transform: { legacyDecorator: true, decoratorMetadata: true },
    target: 'es2022',
  },
  module: { type: 'commonjs' },
};
const swcJs = {
  jsc: { parser: { syntax: 'ecmascript' }, target: 'es2022' },
  module: { type: 'commonjs' },
};

/** What every tier shares: Node, and the swc transform of our code and the ESM packages. */
const common = {
  testEnvironment: 'node',
  transform: {
    '^.+\\.ts$': ['@swc/jest', swcTs],
    '^.+\\.(js|mjs)$': ['@swc/jest', swcJs],
  },
  // Nest ships ES modules only, which Jest must see as CommonJS. (Every other package in the
  // tree has a CommonJS build; see the overrides in docs/decisions.md.)
  transformIgnorePatterns: ['/node_modules/(?!@nestjs/)'],
};

/** The e2e files that run on both stores (the e2e-postgres-store project). */
const POSTGRES_STORE_FILES = [
  'subscribers',
  'campaign-send',
  'campaign-worker-crash',
  'campaign-throttle',
  'transactional',
  'rate-limits',
  'rate-limits-people',
  'tracking-repeats',
  'provider-webhooks',
  'bulk-data',
  'webhooks',
  'embedded-workers',
];

/**
 * Three tiers, each runnable alone (`npm run test:unit|test:medium|test:e2e`); plain `jest`
 * runs all three.
 * - unit: pure logic, no PostgreSQL or Redis (the migrations check diffs schemas in memory).
 * - medium: services and repositories on a real PostgreSQL database of their own, no HTTP.
 * - e2e: the whole app over HTTP (and the dashboard in Chromium), real SMTP on loopback.
 */
module.exports = {
  projects: [
    {
      ...common,
      displayName: 'unit',
      // The dashboard's pure logic (web/src: its message catalogue, say) is unit-tested too.
      testMatch: [
        '<rootDir>/src/**/*.spec.ts',
        '<rootDir>/web/src/**/*.spec.ts',
        '<rootDir>/test/migrations.spec.ts',
      ],
    },
    {
      ...common,
      displayName: 'medium',
      testMatch: ['<rootDir>/test/medium/**/*.medium-spec.ts'],
    },
    {
      ...common,
      displayName: 'e2e',
      // Every response of a TestApi is checked against the served OpenAPI document.
      setupFilesAfterEnv: ['<rootDir>/test/support/contract/fail-on-violations.ts'],
      testMatch: ['<rootDir>/test/e2e/**/*.e2e-spec.ts', '<rootDir>/test/browser/**/*.e2e-spec.ts'],
    },
    {
      ...common,
      displayName: 'e2e-postgres-store',
      // The files whose guarantees depend on the shared store (queues, rate limits, locks,
      // marks, token buckets), again with REDIS_URL unset: everything in PostgreSQL, as on a
      // bare machine (test/support/test-env.ts reads TEST_STORE).
      setupFiles: ['<rootDir>/test/support/postgres-store-setup.ts'],
      setupFilesAfterEnv: ['<rootDir>/test/support/contract/fail-on-violations.ts'],
      testMatch: POSTGRES_STORE_FILES.map((file) => `<rootDir>/test/e2e/${file}.e2e-spec.ts`),
    },
  ],
  // Jest's default is one worker on two cores. Most of a test file's time is waiting on
  // PostgreSQL, Redis, SMTP and child processes, so two files at once fill the idle CPU.
  maxWorkers: 2,
  // A worker that has run a hundred files holds a heap of a gigabyte and more (each file's
  // module registry), and after the last file it took over 600 ms to wind down, past the
  // 500 ms Jest waits before it force-exits a worker. Past 1 GB after a file, a worker is
  // replaced by a fresh one.
  workerIdleMemoryLimit: '1GB',
  testTimeout: 60000,
  // Every TestEnv on the shared servers is written down; the run's end removes and names what
  // a file's clean-up left behind (test/support/test-env-registry.ts).
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
};
