import { ErrorDetail, ValidationFailedError } from '../../platform/errors/api-errors';
import { parseSegmentFilter } from '../../segments/segment-filter';
import { isOneOf } from '../../platform/validation/one-of';

/** The steps an automation can hold, as the engine reads them once validated. */
export type AutomationStep = SendStep | WaitStep | ConditionStep | ExitStep;

export interface SendStep {
  id: string;
  type: 'send';
  template_id: string;
  subject?: string;
  from?: string;
  next?: string;
}

export interface WaitStep {
  id: string;
  type: 'wait';
  seconds: number;
  next?: string;
}

export type ConditionTest = { opened: string } | { clicked: string } | { filter: unknown };

export interface ConditionStep {
  id: string;
  type: 'condition';
  if: ConditionTest;
  then: string | null;
  else: string | null;
}

export interface ExitStep {
  id: string;
  type: 'exit';
}

export type AutomationTrigger =
  | { type: 'subscriber_created'; filter?: unknown }
  | { type: 'segment_entered'; segment_id: string; filter?: unknown }
  | { type: 'event'; name: string; filter?: unknown }
  | { type: 'date'; field: string; offset_days?: number; at?: string; filter?: unknown }
  | { type: 'manual'; filter?: unknown };

export type Reentry = 'never' | 'after_exit' | 'always';
export const REENTRY_VALUES: readonly Reentry[] = ['never', 'after_exit', 'always'];

export const MAX_STEPS = 50;
export const MAX_STEP_ID_LENGTH = 64;
export const MAX_WAIT_SECONDS = 31_536_000;
export const MAX_OFFSET_DAYS = 30;
const TRIGGER_TYPES = ['subscriber_created', 'segment_entered', 'event', 'date', 'manual'];
const STEP_TYPES = ['send', 'wait', 'condition', 'exit'];
const TIME_OF_DAY = /^([01]\d|2[0-3]):([0-5]\d)$/;
/** A custom field holding a date: `custom_fields.<key>`, or the key alone. */
const CUSTOM_DATE_FIELD = /^(custom_fields\.)?[A-Za-z0-9_-]{1,100}$/;

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Checks a trigger; returns it when sound. Everything wrong is reported at once, each
 * problem at its path (`trigger.segment_id`).
 */
export function checkTrigger(raw: unknown, errors: ErrorDetail[]): AutomationTrigger | undefined {
  const fail = (field: string, code: string, message: string) => {
    errors.push({ field, code, message });
    return undefined;
  };
  if (!isObject(raw)) return fail('trigger', 'invalid', 'trigger must be an object.');
  const type = raw.type;
  if (typeof type !== 'string' || !TRIGGER_TYPES.includes(type)) {
    return fail(
      'trigger.type',
      'invalid',
      `trigger.type must be one of ${TRIGGER_TYPES.join(', ')}.`,
    );
  }
  const before = errors.length;
  if (raw.filter !== undefined) filterErrors(raw.filter, 'trigger.filter', errors);
  if (type === 'segment_entered' && !isShortString(raw.segment_id)) {
    fail('trigger.segment_id', 'required', 'A segment_entered trigger names its segment_id.');
  }
  if (type === 'event' && !isShortString(raw.name)) {
    fail('trigger.name', 'required', 'An event trigger names the event (1-255 characters).');
  }
  if (type === 'date') {
    if (typeof raw.field !== 'string' || !isDateField(raw.field)) {
      fail(
        'trigger.field',
        'invalid',
        'field is birthdate or a custom field (custom_fields.<key>) holding YYYY-MM-DD.',
      );
    }
    const offset = raw.offset_days;
    if (
      offset !== undefined &&
      (!Number.isInteger(offset) || Math.abs(offset as number) > MAX_OFFSET_DAYS)
    ) {
      fail('trigger.offset_days', 'out_of_range', 'offset_days is a whole number in -30..30.');
    }
    if (raw.at !== undefined && (typeof raw.at !== 'string' || !TIME_OF_DAY.test(raw.at))) {
      fail('trigger.at', 'invalid', 'at is a time of day, HH:MM (24 hours).');
    }
  }
  return errors.length === before ? (raw as AutomationTrigger) : undefined;
}

function isDateField(field: string): boolean {
  return field === 'birthdate' || CUSTOM_DATE_FIELD.test(field);
}

function isShortString(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= 255;
}

function filterErrors(filter: unknown, path: string, errors: ErrorDetail[]): void {
  try {
    parseSegmentFilter(filter);
  } catch (error) {
    if (!(error instanceof ValidationFailedError)) throw error;
    for (const detail of error.details) {
      errors.push({ ...detail, field: path + detail.field.slice('filter'.length) });
    }
  }
}

/**
 * Checks the steps for everything that needs no database: shape, unique ids, references to
 * steps that exist, conditions on an earlier send, and loops that never pass a wait (a run
 * would spin through them without end). Template ids are checked by the caller.
 */
export function checkSteps(raw: unknown, errors: ErrorDetail[]): AutomationStep[] | undefined {
  const fail = (field: string, code: string, message: string) => {
    errors.push({ field, code, message });
  };
  if (!Array.isArray(raw) || raw.length < 1 || raw.length > MAX_STEPS) {
    fail('steps', 'invalid', `steps is an array of 1 to ${MAX_STEPS} steps.`);
    return undefined;
  }
  const before = errors.length;
  const index = new Map<string, number>();
  raw.forEach((step: unknown, i) => {
    const id = isObject(step) ? step.id : undefined;
    if (typeof id !== 'string' || id.length === 0 || id.length > MAX_STEP_ID_LENGTH) {
      fail(
        `steps[${i}].id`,
        'invalid',
        `Each step has an id of 1 to ${MAX_STEP_ID_LENGTH} characters.`,
      );
    } else if (index.has(id)) {
      fail(`steps[${i}].id`, 'duplicate', `Another step already has the id ${id}.`);
    } else {
      index.set(id, i);
    }
  });
  const reference = (value: unknown, path: string, nullable: boolean) => {
    if (value === undefined) return;
    if (value === null && nullable) return;
    if (typeof value !== 'string' || !index.has(value)) {
      fail(path, 'unknown_step', 'No step has this id.');
    }
  };
  raw.forEach((step: unknown, i) => {
    const at = `steps[${i}]`;
    if (!isObject(step)) return fail(at, 'invalid', 'A step is an object.');
    if (typeof step.type !== 'string' || !STEP_TYPES.includes(step.type)) {
      return fail(`${at}.type`, 'invalid', `type is one of ${STEP_TYPES.join(', ')}.`);
    }
    switch (step.type) {
      case 'send':
        if (typeof step.template_id !== 'string' || step.template_id.length === 0) {
          fail(`${at}.template_id`, 'required', 'A send step names its template_id.');
        }
        if (step.subject !== undefined && !isText(step.subject, 998)) {
          fail(`${at}.subject`, 'invalid', 'subject is a string of 1 to 998 characters.');
        }
        if (step.from !== undefined && !isText(step.from, 255)) {
          fail(`${at}.from`, 'invalid', 'from is an address of at most 255 characters.');
        }
        reference(step.next, `${at}.next`, false);
        break;
      case 'wait':
        if (
          !Number.isInteger(step.seconds) ||
          (step.seconds as number) < 1 ||
          (step.seconds as number) > MAX_WAIT_SECONDS
        ) {
          fail(
            `${at}.seconds`,
            'out_of_range',
            `seconds is a whole number in 1..${MAX_WAIT_SECONDS}.`,
          );
        }
        reference(step.next, `${at}.next`, false);
        break;
      case 'condition':
        checkCondition(step, i, index, raw as Json[], errors);
        reference(step.then, `${at}.then`, true);
        reference(step.else, `${at}.else`, true);
        if (step.then === undefined) fail(`${at}.then`, 'required', 'then is a step id or null.');
        if (step.else === undefined) fail(`${at}.else`, 'required', 'else is a step id or null.');
        break;
    }
  });
  if (errors.length !== before) return undefined;
  const steps = raw as AutomationStep[];
  if (hasCycleWithoutWait(steps)) {
    fail('steps', 'cycle', 'A loop of steps must pass a wait step, or a run would never stop.');
    return undefined;
  }
  return steps;
}

function isText(value: unknown, max: number): boolean {
  return typeof value === 'string' && value.length > 0 && value.length <= max;
}

function checkCondition(
  step: Json,
  i: number,
  index: Map<string, number>,
  steps: Json[],
  errors: ErrorDetail[],
): void {
  const at = `steps[${i}].if`;
  const test = step.if;
  if (!isObject(test) || Object.keys(test).length !== 1) {
    errors.push({ field: at, code: 'invalid', message: 'if is {opened}, {clicked} or {filter}.' });
    return;
  }
  if ('filter' in test) {
    filterErrors(test.filter, `${at}.filter`, errors);
    return;
  }
  const kind = 'opened' in test ? 'opened' : 'clicked' in test ? 'clicked' : undefined;
  if (!kind) {
    errors.push({ field: at, code: 'invalid', message: 'if is {opened}, {clicked} or {filter}.' });
    return;
  }
  const target = test[kind];
  const position = typeof target === 'string' ? index.get(target) : undefined;
  if (position === undefined || position >= i || steps[position]?.type !== 'send') {
    errors.push({
      field: `${at}.${kind}`,
      code: 'not_an_earlier_send',
      message: 'A condition on opens or clicks names a send step before it.',
    });
  }
}

/** The step a run goes to after this one ends normally; null ends the run. */
export function followingStep(steps: AutomationStep[], position: number): string | null {
  const step = steps[position];
  if ('next' in step && step.next !== undefined) return step.next;
  return steps[position + 1]?.id ?? null;
}

/**
 * Whether some loop of steps passes no wait. A wait step's way out is left out of the graph,
 * so any cycle that remains could be run through without time passing.
 */
export function hasCycleWithoutWait(steps: AutomationStep[]): boolean {
  const position = new Map(steps.map((step, i) => [step.id, i]));
  const edges = (i: number): number[] => {
    const step = steps[i];
    const ids: (string | null)[] =
      step.type === 'wait' || step.type === 'exit'
        ? []
        : step.type === 'condition'
          ? [step.then, step.else]
          : [followingStep(steps, i)];
    return ids.filter((id): id is string => id !== null).map((id) => position.get(id)!);
  };
  // Iterative three-colour DFS: 0 unseen, 1 on the current path, 2 done.
  const colour = new Array<number>(steps.length).fill(0);
  for (let start = 0; start < steps.length; start++) {
    if (colour[start] !== 0) continue;
    const stack: { node: number; next: number[] }[] = [{ node: start, next: edges(start) }];
    colour[start] = 1;
    while (stack.length > 0) {
      const top = stack[stack.length - 1];
      const child = top.next.pop();
      if (child === undefined) {
        colour[top.node] = 2;
        stack.pop();
      } else if (colour[child] === 1) {
        return true;
      } else if (colour[child] === 0) {
        colour[child] = 1;
        stack.push({ node: child, next: edges(child) });
      }
    }
  }
  return false;
}

/** The send steps' template ids, with their paths, for the caller's existence check. */
export function templateReferences(steps: AutomationStep[]): { path: string; id: string }[] {
  return steps.flatMap((step, i) =>
    step.type === 'send' ? [{ path: `steps[${i}].template_id`, id: step.template_id }] : [],
  );
}

export function checkReentry(raw: unknown, errors: ErrorDetail[]): Reentry | undefined {
  if (raw === undefined) return 'never';
  if (isOneOf(REENTRY_VALUES, raw)) return raw;
  errors.push({
    field: 'reentry',
    code: 'invalid',
    message: 'reentry is never, after_exit or always.',
  });
  return undefined;
}
