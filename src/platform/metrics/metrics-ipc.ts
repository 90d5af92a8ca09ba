import { randomUUID } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import type { HeraldMetrics, MetricsSource } from './herald-metrics';

/** How long a scrape waits for a child's metrics before going on without them. */
const CHILD_ANSWER_MS = 2_000;

const ASK = 'herald:metrics?';
const ANSWER = 'herald:metrics';

interface Ask {
  type: typeof ASK;
  id: string;
}
interface Answer {
  type: typeof ANSWER;
  id: string;
  metrics: Awaited<ReturnType<MetricsSource>>;
}

/** In a forked child (npm start's workers): answers the parent's requests for metrics. */
export function answerMetricsRequests(metrics: HeraldMetrics): void {
  process.on('message', (message: Partial<Ask>) => {
    if (message?.type !== ASK || typeof message.id !== 'string') return;
    const id = message.id;
    void metrics.json().then(
      (json) => process.send?.({ type: ANSWER, id, metrics: json } satisfies Answer),
      () => undefined,
    );
  });
}

/** In the parent: asks the child for its metrics; undefined if it does not answer in time. */
export function askForMetrics(child: ChildProcess | undefined): ReturnType<MetricsSource> {
  if (!child?.connected) return Promise.resolve(undefined);
  const id = randomUUID();
  return new Promise((resolve) => {
    const done = (metrics: Answer['metrics']) => {
      clearTimeout(timer);
      child.off('message', listen);
      resolve(metrics);
    };
    const listen = (message: Partial<Answer>) => {
      if (message?.type === ANSWER && message.id === id) done(message.metrics);
    };
    const timer = setTimeout(() => done(undefined), CHILD_ANSWER_MS);
    child.on('message', listen);
    child.send({ type: ASK, id } satisfies Ask, (error) => error && done(undefined));
  });
}
