import { readFileSync } from 'node:fs';
import { diffSchemas, migrationPaths, pendingMigrationSql } from '../scripts/migration-diff';

// The same diff `npm run -s db:diff -- --check` runs (the Prisma schema engine compiled to
// wasm, no database): a schema change without its migration fails here, with the SQL to add.
describe('prisma migrations', () => {
  it('cover every change in prisma/schema.prisma', async () => {
    const sql = await pendingMigrationSql();
    // On failure: npm run -s db:diff -- --name <what_changed>
    expect(sql).toBe('');
  });

  // Guards the test above against an engine that silently diffs nothing.
  it('are detected when the schema moves past the snapshot', async () => {
    const current = readFileSync(migrationPaths().schema, 'utf8');
    const changed = `${current}\nmodel MigrationsSpecProbe {\n  id String @id @db.Uuid\n}\n`;
    await expect(diffSchemas(current, changed)).resolves.toContain(
      'CREATE TABLE "MigrationsSpecProbe"',
    );
  });
});
