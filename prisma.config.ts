import { defineConfig } from 'prisma/config';

// `prisma generate`, `validate` and `format` never run the native schema engine, but the CLI
// still tries to download it first, which fails offline. Pointing the variable at any existing
// file skips the download for those commands. Migrations are applied by
// src/platform/database/migrator.ts instead (see docs/decisions.md).
const offlineCommands = ['generate', 'validate', 'format'];
if (offlineCommands.some((command) => process.argv.includes(command))) {
  process.env.PRISMA_SCHEMA_ENGINE_BINARY ??= process.execPath;
}

export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  datasource: {
    url: process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/herald',
  },
});
