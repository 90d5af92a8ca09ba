import { readFileSync } from 'node:fs';

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

/** Clock ticks per second of /proc's CPU times (USER_HZ: 100 on Linux's common builds). */
const TICKS_PER_SECOND = 100;

/**
 * The CPU time process `pid` has used so far, in ms (Linux's /proc, to the clock tick: 10 ms):
 * for what a request costs another process, on a machine whose wall clock other tests stretch.
 */
export function processCpuMs(pid: number): number {
  // The fields after the command name, which may itself hold spaces: utime and stime are
  // the 14th and 15th of the line, the 12th and 13th after it.
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
}
