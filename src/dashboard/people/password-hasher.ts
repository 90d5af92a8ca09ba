import { Worker } from 'node:worker_threads';

/**
 * Dashboard passwords are stored as bcrypt hashes (bcryptjs: pure JavaScript, so installs need
 * no native build). Cost 12 takes about half a second here: slow for a guesser, fine for a
 * person signing in.
 */
const COST = 12;

/** bcrypt reads at most 72 bytes; longer passwords are refused rather than silently cut. */
export const PASSWORD_MAX_BYTES = 72;
export const PASSWORD_MIN_LENGTH = 12;

/** Compared against when the email is unknown, so both paths take the same time. */
const DECOY_HASH = '$2b$12$Mfd5sqex51fGvu0sduN6nOVo3F4MH5AzjFQX1OL4hdrPV8KTgG9UK';

export function hashPassword(password: string): Promise<string> {
  return hashingThread().run<string>({ op: 'hash', password, cost: COST });
}

export async function verifyPassword(password: string, passwordHash: string | undefined) {
  const matches = await hashingThread().run<boolean>({
    op: 'compare',
    password,
    hash: passwordHash ?? DECOY_HASH,
  });
  return matches && passwordHash !== undefined;
}

type HashingTask =
  | { op: 'hash'; password: string; cost: number }
  | { op: 'compare'; password: string; hash: string };

/**
 * bcrypt is half a second of CPU by design. Even bcryptjs's asynchronous form runs it on the
 * event loop in slices, so a burst of sign-ins would hold up every other request; one worker
 * thread does it instead, many tasks at once (its slices interleave there).
 */
class HashingThread {
  private worker?: Worker;
  private nextId = 0;
  private readonly pending = new Map<
    number,
    { resolve: (value: never) => void; reject: (e: Error) => void }
  >();

  run<T>(task: HashingTask): Promise<T> {
    const worker = (this.worker ??= this.spawn());
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve, reject });
      worker.ref(); // keep the process alive while a task is out
      worker.postMessage({ id, ...task });
    });
  }

  private spawn(): Worker {
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { bcryptjs: require.resolve('bcryptjs') },
    });
    worker.unref();
    worker.on(
      'message',
      ({ id, result, error }: { id: number; result?: never; error?: string }) => {
        const task = this.pending.get(id);
        this.pending.delete(id);
        if (this.pending.size === 0) worker.unref();
        if (error === undefined) task?.resolve(result as never);
        else task?.reject(new Error(error));
      },
    );
    const fail = (error: Error) => {
      if (this.worker === worker) this.worker = undefined;
      for (const task of this.pending.values()) task.reject(error);
      this.pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', () => fail(new Error('the password hashing thread stopped')));
    return worker;
  }
}

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const bcrypt = require(workerData.bcryptjs);
parentPort.on('message', async ({ id, op, password, hash, cost }) => {
  try {
    const result = op === 'hash' ? await bcrypt.hash(password, cost) : await bcrypt.compare(password, hash);
    parentPort.postMessage({ id, result });
  } catch (error) {
    parentPort.postMessage({ id, error: String(error && error.message || error) });
  }
});
`;

let thread: HashingThread | undefined;
const hashingThread = () => (thread ??= new HashingThread());
