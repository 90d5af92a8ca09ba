// Summarises a V8 .cpuprofile (node --cpu-prof, e.g. through a bench's BENCH_NODE_ARGS) as
// plain text: where the busy CPU time went, by package or source file and by function, self
// and inclusive, and per request when told how many were served (`--requests N`). Only samples taken while the process was busy count: boot (module loading)
// is left out by starting at the first sample after `--skip-seconds` (default 0).
//
//   node -r @swc-node/register bench/support/profile-summary.ts var/prof/CPU….cpuprofile \
//     [--skip-seconds 8] [--until-seconds 30] [--top 40] [--requests 12345]

import { readFileSync } from 'node:fs';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
}

const args = process.argv.slice(2);
const option = (name: string, fallback: number) => {
  const at = args.indexOf(name);
  return at >= 0 ? Number(args[at + 1]) : fallback;
};
const file = args.find((arg) => arg.endsWith('.cpuprofile'));
if (!file) throw new Error('usage: profile-summary.ts <file.cpuprofile> [--skip-seconds N]');
const skipUs = option('--skip-seconds', 0) * 1e6;
/** Samples after this are left out too (e.g. a worker's catching up once its send is done). */
const untilUs = option('--until-seconds', Infinity) * 1e6;
const top = option('--top', 40);
const requests = option('--requests', 0);

const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const parent = new Map<number, number>();
for (const node of profile.nodes)
  for (const child of node.children ?? []) parent.set(child, node.id);

/** Where a frame comes from: a package (node_modules/<name>), a file of ours, or V8/node. */
function origin(frame: CallFrame): string {
  const { url } = frame;
  if (!url) return frame.functionName.startsWith('(') ? frame.functionName : '(native)';
  const modules = url.lastIndexOf('node_modules/');
  if (modules >= 0) {
    const parts = url.slice(modules + 'node_modules/'.length).split('/');
    return parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
  }
  if (url.startsWith('node:')) return url;
  const dist = url.indexOf('/dist/');
  if (dist >= 0) return url.slice(dist + 1);
  const bench = url.indexOf('/bench/');
  return bench >= 0 ? url.slice(bench + 1) : url;
}

const label = (frame: CallFrame) =>
  `${frame.functionName || '(anonymous)'} ${origin(frame)}:${frame.lineNumber + 1}`;

const selfByFunction = new Map<string, number>();
const selfByOrigin = new Map<string, number>();
const inclusiveByFunction = new Map<string, number>();
/** Busy share of each second of the whole profile, to see where boot ends and load starts. */
const busyPerSecond: number[] = [];
let busyUs = 0;
let idleUs = 0;
let elapsed = 0;
for (let i = 0; i < profile.samples.length; i++) {
  const delta = profile.timeDeltas[i] ?? 0;
  elapsed += delta;
  const leaf = byId.get(profile.samples[i])!;
  const idle = leaf.callFrame.functionName === '(idle)';
  const second = Math.floor(elapsed / 1e6);
  busyPerSecond[second] = (busyPerSecond[second] ?? 0) + (idle ? 0 : delta);
  if (elapsed < skipUs || elapsed > untilUs) continue;
  if (idle) {
    idleUs += delta;
    continue;
  }
  busyUs += delta;
  const add = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + delta);
  add(selfByFunction, label(leaf.callFrame));
  add(selfByOrigin, origin(leaf.callFrame));
  const seen = new Set<string>();
  for (let id: number | undefined = leaf.id; id !== undefined; id = parent.get(id)) {
    const key = label(byId.get(id)!.callFrame);
    if (!seen.has(key)) add(inclusiveByFunction, key);
    seen.add(key);
  }
}

const ms = (us: number) => (us / 1000).toFixed(0).padStart(7);
const pct = (us: number) => `${((100 * us) / busyUs).toFixed(1).padStart(5)}%`;
const perRequest = (us: number) =>
  requests ? `${(us / requests).toFixed(1).padStart(6)} µs/req` : '';
function table(title: string, map: Map<string, number>, rows = top) {
  console.log(`\n${title}`);
  for (const [key, us] of [...map].sort((a, b) => b[1] - a[1]).slice(0, rows)) {
    console.log(`${ms(us)} ms ${pct(us)} ${perRequest(us)}  ${key}`);
  }
}

const timeline = Array.from(busyPerSecond, (us = 0) => Math.round(us / 1e4));
console.log(`busy % per second: ${timeline.join(' ')}`);
const window = `after ${skipUs / 1e6} s${untilUs < Infinity ? `, until ${untilUs / 1e6} s` : ''}`;
console.log(`${file}: busy ${ms(busyUs)} ms, idle ${ms(idleUs)} ms (${window})`);
table('self time by origin', selfByOrigin, 30);
table('self time by function', selfByFunction);
table('inclusive time by function', inclusiveByFunction, top * 2);
