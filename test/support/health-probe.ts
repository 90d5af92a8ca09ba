import { ControlServer } from './control-server';
import { waitFor } from './wait-for';

export interface ProbedWork<T> {
  result: T;
  /** The slowest /health answer's time beyond its control's, in ms. */
  slowest: number;
  probes: number;
}

/**
 * Runs `work` while asking `${base}/health` (a Herald process of its own) back to back, a new
 * probe `intervalMs` after each answer, every one beside an idle control server. Returns what
 * `work` returned and the slowest probe, counting only its time beyond the control's: on a
 * machine whose cores other suites keep busy, both wait for a core alike, so what is left is
 * Herald's own event loop being held up. Every probe must answer 200. One probe has answered
 * before `work` starts, and probing goes on until one has begun after `work` ended, so the
 * probes cover all of it.
 */
export async function probeHealthDuring<T>(
  base: string,
  work: () => Promise<T>,
  intervalMs = 20,
): Promise<ProbedWork<T>> {
  const control = await ControlServer.start();
  const beyondControl: number[] = [];
  let working = true;
  let firstAnswer: () => void = () => undefined;
  const answered = new Promise<void>((resolve) => (firstAnswer = resolve));
  const prober = waitFor(
    async () => {
      const health = await control.timeBeside(`${base}/health`);
      if (health.status !== 200) throw new Error(`/health answered ${health.status}`);
      beyondControl.push(health.ms - health.controlMs);
      firstAnswer();
      return !working;
    },
    { intervalMs, timeoutMs: 600_000 },
  );
  try {
    // A probe that fails before answering once must fail the caller, not leave it waiting.
    await Promise.race([answered, prober]);
    const probesBefore = beyondControl.length;
    const result = await work();
    await Promise.race([
      waitFor(() => beyondControl.length > probesBefore + 1, { intervalMs: 5 }),
      prober,
    ]);
    working = false;
    await prober;
    return { result, slowest: Math.max(...beyondControl), probes: beyondControl.length };
  } finally {
    // Also when `work` or a probe failed: the prober ends before its control server does.
    working = false;
    await prober.catch(() => undefined);
    await control.stop();
  }
}
