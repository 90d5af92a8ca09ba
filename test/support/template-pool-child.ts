import { TemplateWorkerPool } from '../../src/templates/template-pool';

/**
 * A process that keeps one template task in flight at all times, for a test to freeze it
 * (test/e2e/faults/template-freeze). Asked anything on its IPC channel, it answers how many
 * tasks ended well and how many failed, and with `stop` it closes and exits.
 */
const pool = new TemplateWorkerPool(1);
const task = { kind: 'text', html: '<p>Hello</p>' } as const;
const counts = { ok: 0, failed: 0, errors: [] as string[] };
let stopping = false;

process.on('message', (message) => {
  if (message === 'stop') {
    stopping = true;
    void pool.close().then(() => process.exit(0));
    return;
  }
  process.send!(counts);
});

async function main(): Promise<void> {
  while (!stopping) {
    try {
      await pool.run(task, 1_000, 'a');
      counts.ok++;
    } catch (error) {
      if (stopping) return;
      counts.failed++;
      counts.errors.push(String(error));
    }
  }
}

void main();
