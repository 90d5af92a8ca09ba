import { Injectable, Logger } from '@nestjs/common';
import { Readable } from 'node:stream';
import { AuditLog } from '../audit/audit-log';
import { Principal } from '../auth/principal';
import { isUuid, newId } from '../platform/crypto/ids';
import { bulkJobsExceeded } from '../platform/database/account-quota';
import { ConflictError, NotFoundError, ValidationFailedError } from '../platform/errors/api-errors';
import { withinDeadline } from '../platform/queue/within-deadline';
import { ENQUEUE_DEADLINE_MS } from '../platform/settings';
import { FileStore } from '../platform/storage/file-store';
import { SegmentsService } from '../segments/segments.service';
import { ExportAccepted, ExportResponse, presentExport } from './export.presenter';
import { ExportQueue } from './export-queue';
import { ExportsRepository } from './exports.repository';

/** CSV exports of subscribers: started here, written by the workers (ExportRunner). */
@Injectable()
export class ExportsService {
  private readonly logger = new Logger(ExportsService.name);

  constructor(
    private readonly exports: ExportsRepository,
    private readonly segments: SegmentsService,
    private readonly files: FileStore,
    private readonly queue: ExportQueue,
    private readonly audit: AuditLog,
  ) {}

  async create(caller: Principal, segmentId: string | null | undefined): Promise<ExportAccepted> {
    const { accountId } = caller;
    if (segmentId && (await this.segments.filterOf(accountId, segmentId)) === undefined) {
      throw new ValidationFailedError([
        { field: 'segment_id', code: 'not_found', message: 'No such segment.' },
      ]);
    }
    const id = newId();
    const created = await this.exports.create(accountId, {
      id,
      apiKeyId: caller.apiKeyId,
      userId: caller.userId,
      segmentId: segmentId ?? null,
    });
    if (!created) throw bulkJobsExceeded('exports');
    await this.audit.recordBy(caller, {
      action: 'subscriber_export.created',
      metadata: { export_id: id, ...(segmentId ? { segment_id: segmentId } : {}) },
    });
    try {
      await withinDeadline(this.queue.enqueue(accountId, id), ENQUEUE_DEADLINE_MS, `export ${id}`);
    } catch (error) {
      this.logger.error(
        `export ${id}: enqueue failed, the watchdog will start it: ${String(error)}`,
      );
    }
    return { id, status: 'queued' };
  }

  async get(caller: Principal, id: string): Promise<ExportResponse> {
    const row = isUuid(id) ? await this.exports.findById(caller.accountId, id) : null;
    if (!row) throw new NotFoundError('export');
    return presentExport(row);
  }

  /** The finished file, streamed from the store; 409 while it is not (or no longer) there. */
  async download(caller: Principal, id: string): Promise<Readable> {
    const row = isUuid(id) ? await this.exports.findById(caller.accountId, id) : null;
    if (!row) throw new NotFoundError('export');
    if (row.status !== 'done' || !row.fileId) {
      throw new ConflictError(
        row.status === 'expired'
          ? 'This export has expired and its file is deleted; start a new export.'
          : `This export is ${row.status}; its file can be downloaded once it is done.`,
      );
    }
    return this.files.read(caller.accountId, row.fileId);
  }
}
