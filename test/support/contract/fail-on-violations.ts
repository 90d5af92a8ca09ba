import { appendFileSync } from 'node:fs';
import { contractTally, operationsSeen, takeViolations, Violation } from './contract-watch';

/**
 * Set up for every e2e test file (jest.config.js): a test fails when any response its
 * servers sent did not match the OpenAPI document, naming the request and each mismatch.
 */
afterEach(() => {
  const violations = takeViolations();
  if (violations.length) throw new Error(report(violations));
});

// CONTRACT_TALLY=<file> appends each test file's counts, one JSON line per file.
afterAll(() => {
  const target = process.env.CONTRACT_TALLY;
  if (!target) return;
  const file = expect.getState().testPath ?? 'unknown';
  appendFileSync(
    target,
    `${JSON.stringify({ file, ...contractTally, operations: [...operationsSeen] })}\n`,
  );
});

function report(violations: Violation[]): string {
  const lines = ['Responses that do not match the OpenAPI document served at /openapi.json:'];
  for (const violation of violations.slice(0, 20)) {
    lines.push(`  ${violation.request} → ${violation.status} (${violation.operation})`);
    for (const problem of violation.problems) lines.push(`    - ${problem}`);
  }
  if (violations.length > 20) lines.push(`  … and ${violations.length - 20} more`);
  return lines.join('\n');
}
