// Where a run's CPU went: the whole machine's busy time (/proc/stat) and that of named groups
// of processes (the worker, the sink, PostgreSQL's backends, Redis), per message. On a machine
// whose cores the relay, the database and the sender all share, the machine's CPU per message
// is what bounds the rate once every core is busy: this is how a bench shows it.

import { readdirSync, readFileSync } from 'node:fs';

/** Linux reports CPU time in clock ticks of 10 ms (USER_HZ = 100). */
const TICK_MS = 10;

/** User + system CPU ms of a process so far; undefined once it is gone. */
export function processCpuMs(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return undefined;
  }
}

/** The pids of every process whose command name is `comm` (e.g. `postgres`). */
export function pidsNamed(comm: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === comm) pids.push(Number(entry));
    } catch {
      // Gone between the listing and the read.
    }
  }
  return pids;
}

interface Snapshot {
  at: number;
  busyMs: number;
  totalMs: number;
  /** Per group, per pid: CPU ms so far. */
  groups: Map<string, Map<number, number>>;
}

/** CPU taken by the whole machine and by each group between two snapshots. */
export interface CpuUse {
  /** Busy fraction of all cores (1 = every core busy the whole time). */
  machineBusy: number;
  machineMs: number;
  groupsMs: Map<string, number>;
}

export class CpuMeter {
  /** @param groups the pids making up each group, asked at every snapshot */
  constructor(private readonly groups: Record<string, () => (number | undefined)[]>) {}

  snapshot(): Snapshot {
    const [cpu] = readFileSync('/proc/stat', 'utf8').split('\n');
    const ticks = cpu.trim().split(/\s+/).slice(1, 9).map(Number);
    const idle = ticks[3] + ticks[4];
    const total = ticks.reduce((sum, value) => sum + value, 0);
    const groups = new Map<string, Map<number, number>>();
    for (const [name, pids] of Object.entries(this.groups)) {
      const used = new Map<number, number>();
      for (const pid of pids()) {
        const ms = processCpuMs(pid);
        if (pid !== undefined && ms !== undefined) used.set(pid, ms);
      }
      groups.set(name, used);
    }
    return { at: Date.now(), busyMs: (total - idle) * TICK_MS, totalMs: total * TICK_MS, groups };
  }

  /**
   * What was used between two snapshots. A process that started in between counts in full; one
   * that ended in between is lost (PostgreSQL's pooled backends live through a run).
   */
  static between(before: Snapshot, after: Snapshot): CpuUse {
    const groupsMs = new Map<string, number>();
    for (const [name, used] of after.groups) {
      const earlier = before.groups.get(name) ?? new Map<number, number>();
      let sum = 0;
      for (const [pid, ms] of used) sum += ms - (earlier.get(pid) ?? 0);
      groupsMs.set(name, sum);
    }
    const machineMs = after.busyMs - before.busyMs;
    return { machineBusy: machineMs / (after.totalMs - before.totalMs), machineMs, groupsMs };
  }

  /** `machine 1.10 ms/msg (97 % busy): worker 0.45, sink 0.33, …` */
  static describe(use: CpuUse, messages: number): string {
    const perMessage = (ms: number) => (ms / messages).toFixed(2);
    const groups = [...use.groupsMs].map(([name, ms]) => `${name} ${perMessage(ms)}`).join(', ');
    return (
      `machine ${perMessage(use.machineMs)} CPU ms/msg (${(use.machineBusy * 100).toFixed(0)} % busy)` +
      (groups ? `: ${groups}` : '')
    );
  }
}
