import type { ErrorDetail } from '../platform/errors/api-errors';

/** What became of one item of a bulk write (batch upsert, CSV import). */
export type BulkStatus = 'created' | 'updated' | 'unchanged' | 'erased' | 'failed';

export interface BulkOutcome {
  position: number;
  status: BulkStatus;
  id?: string;
  errors?: ErrorDetail[];
  /** The item changed a subscriber that existed before the write to `unsubscribed`. */
  unsubscribed?: boolean;
}
