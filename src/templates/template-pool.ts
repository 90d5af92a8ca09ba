import { availableParallelism } from 'node:os';
import { extname, join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { WorkerReply, WorkerRequest, WorkerTask } from './template-worker-protocol';

/** Why a task did not come back: the pool stopped the worker that ran it. */
export class TemplateWorkerError extends Error {
  constructor(readonly reason: 'timeout' | 'memory' | 'crash') {
    super(`template worker ${reason}`);
  }
}

/** Worker threads at most: template work is bursty, and the API needs its own core. */
const MAX_WORKERS = 2;
/** Heap of one worker: compiling is memory-hungry, and a template past this is refused. */
const WORKER_HEAP_MB = 256;
/** An idle worker is stopped after this; the next task starts one again. */
const IDLE_MS = 30_000;
/** Loading a worker's code (slow only on a starved machine); past this it counts as crashed. */
const BOOT_MS = 30_000;
/** How often the standstill meter ticks while a task is timed. */
const TICK_MS = 100;
/** A gap between two ticks longer than this (plus the tick) counts as standing still. */
const TICK_SLACK_MS = 100;

interface Task {
  request: WorkerTask;
  timeoutMs: number;
  resolve: (reply: WorkerReply) => void;
  reject: (error: Error) => void;
}

/**
 * A few worker threads that compile and render templates (template-worker.ts), one task
 * at a time each. Tasks name an affinity (the message they belong to) that picks their
 * worker, so a message is rendered where it was compiled and stays compiled there. A task
 * that runs past its time, or a worker that runs out of its heap, costs that worker: it is
 * terminated (the only way to stop synchronous JavaScript) and replaced, and only that task
 * fails; the tasks queued behind it go to the new one. Workers do not keep the process alive.
 */
export class TemplateWorkerPool {
  private readonly slots: Slot[];

  constructor(size = Math.max(1, Math.min(MAX_WORKERS, availableParallelism()))) {
    this.slots = Array.from({ length: size }, () => new Slot());
  }

  run(request: WorkerTask, timeoutMs: number, affinity: string): Promise<WorkerReply> {
    const slot = this.slots[hashOf(affinity) % this.slots.length];
    return new Promise((resolve, reject) => slot.enqueue({ request, timeoutMs, resolve, reject }));
  }

  async close(): Promise<void> {
    await Promise.all(this.slots.map((slot) => slot.stop()));
  }
}

function hashOf(text: string): number {
  let hash = 0;
  for (let index = 0; index < text.length; index++) {
    hash = (hash * 31 + text.charCodeAt(index)) >>> 0;
  }
  return hash;
}

class Slot {
  private worker?: Worker;
  /** The worker has loaded its code; until then a task waits, and its time does not run. */
  private ready = false;
  private readonly queue: Task[] = [];
  private task?: Task & { id: number; timer?: NodeJS.Timeout };
  private idleTimer?: NodeJS.Timeout;
  private nextId = 1;

  enqueue(task: Task): void {
    this.queue.push(task);
    this.next();
  }

  /** Stops the worker; a task still running or queued fails (the pool is closing). */
  async stop(): Promise<void> {
    clearTimeout(this.idleTimer);
    const worker = this.worker;
    this.worker = undefined;
    this.ready = false;
    for (const task of [this.finish(), ...this.queue.splice(0)]) {
      task?.reject(new TemplateWorkerError('crash'));
    }
    await worker?.terminate();
  }

  /** Starts the next queued task if none is running. */
  private next(): void {
    if (this.task !== undefined) return;
    const task = this.queue.shift();
    if (!task) return;
    clearTimeout(this.idleTimer);
    this.task = { ...task, id: this.nextId++ };
    this.worker ??= this.spawn();
    if (this.ready) this.send();
  }

  private send(): void {
    const task = this.task!;
    this.arm(task);
    try {
      const request: WorkerRequest = { ...task.request, id: task.id };
      this.worker!.postMessage(request);
    } catch (error) {
      // Variables that cannot be copied to the thread (none come from JSON).
      this.finish()?.reject(error as Error);
      this.next();
    }
  }

  /**
   * Times the running task, by the time this process was running: a timer is only a fair judge
   * while it runs. Frozen (SIGSTOP, a paused machine), its timers fire late, possibly before
   * the reply the thread posted meanwhile is read, and a good template failed (a campaign
   * recipient failed for good that way). So when the timer fires, the time this process stood
   * still is taken off, and the task gets the rest of its time again if any is left.
   */
  private arm(task: Task & { id: number; timer?: NodeJS.Timeout }, timeMs = task.timeoutMs): void {
    standstill.start();
    const startedAt = performance.now();
    const stillAtStart = standstill.read();
    task.timer = setTimeout(() => {
      task.timer = undefined;
      standstill.stop();
      if (this.task?.id !== task.id) return;
      const ran = performance.now() - startedAt - (standstill.read() - stillAtStart);
      if (ran < timeMs) this.arm(task, timeMs - ran);
      else this.fail(new TemplateWorkerError('timeout'));
    }, timeMs);
  }

  private spawn(): Worker {
    const worker = new Worker(BOOTSTRAP, {
      eval: true,
      workerData: WORKER_ENTRY,
      resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
    });
    const boot = setTimeout(() => this.fail(new TemplateWorkerError('crash')), BOOT_MS);
    worker.on('message', (reply: WorkerReply | { ready: true }) => {
      if (this.worker !== worker) return;
      if ('ready' in reply) {
        clearTimeout(boot);
        this.ready = true;
        if (this.task) this.send();
        return;
      }
      if (reply.id !== this.task?.id) return;
      this.finish()?.resolve(reply);
      this.idleTimer = setTimeout(() => void this.stop(), IDLE_MS).unref();
      this.next();
    });
    worker.on('error', (error: Error & { code?: string }) => {
      clearTimeout(boot);
      if (this.worker !== worker) return;
      const memory = error.code === 'ERR_WORKER_OUT_OF_MEMORY';
      this.fail(new TemplateWorkerError(memory ? 'memory' : 'crash'));
    });
    worker.on('exit', () => {
      clearTimeout(boot);
      if (this.worker === worker) this.fail(new TemplateWorkerError('crash'));
    });
    // After the listeners: adding a 'message' listener refs the worker's port again.
    worker.unref();
    return worker;
  }

  /** The running task ends badly: its worker goes, a fresh one takes the next task. */
  private fail(error: TemplateWorkerError): void {
    const worker = this.worker;
    this.worker = undefined;
    this.ready = false;
    void worker?.terminate();
    this.finish()?.reject(error);
    this.next();
  }

  private finish(): Task | undefined {
    const task = this.task;
    if (task?.timer) {
      clearTimeout(task.timer);
      standstill.stop();
    }
    this.task = undefined;
    return task;
  }
}

/**
 * How long this process has stood still (not run at all: SIGSTOP, a paused VM, a blocked
 * event loop), by the gaps between the ticks of a timer that runs while any task is timed.
 */
class StandstillMeter {
  private total = 0;
  private last = 0;
  private users = 0;
  private ticker: NodeJS.Timeout | undefined;

  start(): void {
    if (this.users++ > 0) return;
    this.last = performance.now();
    this.ticker = setInterval(() => this.tick(), TICK_MS);
    this.ticker.unref();
  }

  stop(): void {
    if (--this.users > 0) return;
    clearInterval(this.ticker);
    this.ticker = undefined;
  }

  /** The standstill so far, the gap since the last tick included. */
  read(): number {
    this.tick();
    return this.total;
  }

  private tick(): void {
    const now = performance.now();
    const gap = now - this.last;
    if (gap > TICK_MS + TICK_SLACK_MS) this.total += gap - TICK_MS;
    this.last = now;
  }
}

const standstill = new StandstillMeter();

/**
 * The worker's entry: template-worker.js in a build; in a TypeScript run (tests, scripts)
 * template-worker.ts, loaded through the same register hook.
 */
const WORKER_ENTRY = {
  entry: join(__dirname, `template-worker${extname(__filename)}`),
  register: extname(__filename) === '.ts' ? require.resolve('@swc-node/register') : undefined,
};

const BOOTSTRAP = `
const { workerData } = require('node:worker_threads');
if (workerData.register) require(workerData.register);
require(workerData.entry);
`;
