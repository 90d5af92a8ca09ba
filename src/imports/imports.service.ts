import { Injectable, Logger } from '@nestjs/common';
import { stringify } from 'csv-stringify/sync';
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { AuditLog } from '../audit/audit-log';
import { Principal } from '../auth/principal';
import { ImportMode } from '../generated/prisma/client';
import { isUuid, newId } from '../platform/crypto/ids';
import { neutralizeCell } from '../platform/csv/formula-cells';
import { bulkJobsExceeded } from '../platform/database/account-quota';
import { NotFoundError, ValidationFailedError } from '../platform/errors/api-errors';
import { withinDeadline } from '../platform/queue/within-deadline';
import { ENQUEUE_DEADLINE_MS } from '../platform/settings';
import { IMPORT_ERRORS_SHOWN, IMPORT_MAX_BYTES } from './imports.settings';
import { FileStore, FileTooLargeError } from '../platform/storage/file-store';
import { guessTarget, targetProblem } from '../subscribers/subscriber-csv';
import { invalidField, readCsvUpload } from './csv-upload';
import { ImportPlanError, planImport } from './import-plan';
import { ImportAccepted, ImportResponse, presentImport } from './import.presenter';
import { ImportQueue } from './import-queue';
import { ImportRowError, ImportsRepository } from './imports.repository';

const MODES: readonly ImportMode[] = ['upsert', 'create'];

/**
 * CSV imports of subscribers: the upload (streamed into the file store, its header checked
 * and mapped before the answer), progress and row errors. The rows themselves are written by
 * the workers (ImportRunner).
 */
@Injectable()
export class ImportsService {
  private readonly logger = new Logger(ImportsService.name);

  constructor(
    private readonly imports: ImportsRepository,
    private readonly files: FileStore,
    private readonly queue: ImportQueue,
    private readonly audit: AuditLog,
  ) {}

  async start(caller: Principal, request: IncomingMessage): Promise<ImportAccepted> {
    const { accountId } = caller;
    // Before the upload is stored (up to 100 MB); the create below decides under a lock.
    if (!(await this.imports.hasBulkJobRoom(accountId))) throw bulkJobsExceeded('imports');
    const upload = await readCsvUpload(request, (file) =>
      this.files.write(accountId, 'import', file, IMPORT_MAX_BYTES).catch((error: unknown) => {
        if (!(error instanceof FileTooLargeError)) throw error;
        throw invalidField('file', 'too_large', 'The file is larger than 100 MB.');
      }),
    );
    try {
      const mode = parseMode(upload.fields.mode);
      const requested = parseColumns(upload.fields.columns);
      const plan = await planImport(upload.head, requested).catch((error: unknown) => {
        if (error instanceof ImportPlanError)
          throw invalidField('file', 'invalid_csv', error.message);
        throw error;
      });
      const id = newId();
      const created = await this.imports.create(accountId, {
        id,
        apiKeyId: caller.apiKeyId,
        userId: caller.userId,
        mode,
        columns: plan,
        fileId: upload.stored.id,
        fileBytes: upload.stored.bytes,
        rowsTotal: upload.rows,
      });
      if (!created) throw bulkJobsExceeded('imports');
      await this.audit.recordBy(caller, {
        action: 'subscriber_import.created',
        metadata: { import_id: id, bytes: upload.stored.bytes, mode },
      });
      try {
        await withinDeadline(
          this.queue.enqueue(accountId, id),
          ENQUEUE_DEADLINE_MS,
          `import ${id}`,
        );
      } catch (error) {
        // Committed: the watchdog of any worker starts it once Redis answers.
        this.logger.error(
          `import ${id}: enqueue failed, the watchdog will start it: ${String(error)}`,
        );
      }
      return { id, status: 'queued' };
    } catch (error) {
      await this.files.delete(accountId, upload.stored.id).catch(() => undefined);
      throw error;
    }
  }

  async get(caller: Principal, id: string): Promise<ImportResponse> {
    const row = isUuid(id) ? await this.imports.findById(caller.accountId, id) : null;
    if (!row) throw new NotFoundError('import');
    const errors = await this.imports.errorsAfter(id, { row: 0, field: '' }, IMPORT_ERRORS_SHOWN);
    return presentImport(row, errors);
  }

  /** Every row error of an import as CSV (row, field, message), read from the table in pages. */
  async errorsCsv(caller: Principal, id: string): Promise<Readable> {
    const row = isUuid(id) ? await this.imports.findById(caller.accountId, id) : null;
    if (!row) throw new NotFoundError('import');
    const imports = this.imports;
    async function* lines(): AsyncGenerator<string> {
      yield stringify([['row', 'field', 'message']]);
      let after = { row: 0, field: '' };
      for (;;) {
        const page: ImportRowError[] = await imports.errorsAfter(id, after, 1000);
        if (page.length > 0) {
          yield stringify(
            page.map((error) =>
              [String(error.row), error.field, error.message].map(neutralizeCell),
            ),
          );
        }
        if (page.length < 1000) return;
        after = page[page.length - 1];
      }
    }
    return Readable.from(lines());
  }

  /** The dashboard's mapping step: what each header would map to if nobody changed it. */
  guessColumns(headers: string[]): { header: string; field: string | null }[] {
    return headers.map((header) => ({ header, field: guessTarget(header) }));
  }
}

function parseMode(value: string | undefined): ImportMode {
  if (value === undefined || value === '') return 'upsert';
  if ((MODES as readonly string[]).includes(value)) return value as ImportMode;
  throw invalidField('mode', 'invalid_value', 'mode must be "upsert" or "create".');
}

/** The optional `columns` field: a JSON object of header → field (or null to skip the column). */
function parseColumns(value: string | undefined): Record<string, unknown> {
  if (value === undefined || value === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw invalidField('columns', 'invalid_format', 'columns must be a JSON object.');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw invalidField('columns', 'invalid_type', 'columns must be a JSON object.');
  }
  const details = Object.entries(parsed).flatMap(([header, target]) => {
    const problem = targetProblem(target);
    return problem ? [{ field: `columns.${header}`, code: 'invalid_value', message: problem }] : [];
  });
  if (details.length > 0) throw new ValidationFailedError(details.slice(0, 100));
  return parsed as Record<string, unknown>;
}
