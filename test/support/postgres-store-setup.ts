// The e2e-postgres-store project's setup: every TestEnv of the file runs Herald with REDIS_URL
// unset (test-env.ts), its queues, rate limits and locks in PostgreSQL.
process.env.TEST_STORE = 'postgresql';
