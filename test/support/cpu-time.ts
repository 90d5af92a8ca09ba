/**
 * The CPU time `work` took this process, in ms. Unit tests that guard against super-linear
 * work (a backtracking regex, a quadratic loop) measure this rather than the wall clock: other
 * test workers and processes on a busy machine stretch the wall clock many times over, but not
 * the CPU time the work itself needed.
 */
export function cpuMs(work: () => void): number {
  const before = process.cpuUsage();
  work();
  return cpuMsSince(before);
}

/** cpuMs for asynchronous work (nothing else of this process should run meanwhile). */
export async function cpuMsOf(work: () => Promise<unknown>): Promise<number> {
  const before = process.cpuUsage();
  await work();
  return cpuMsSince(before);
}

function cpuMsSince(before: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}
