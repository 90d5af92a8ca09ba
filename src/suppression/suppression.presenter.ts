import { Suppression } from '../generated/prisma/client';
import { SuppressionResponse } from './suppression.dto';

export function presentSuppression(row: Suppression): SuppressionResponse {
  return {
    email: row.emailNormalized,
    reason: row.reason,
    created_at: row.createdAt.toISOString(),
  };
}
