import type { ErrorDetail } from '../../platform/errors/api-errors';
import { uuidFloor } from '../triggers/automation-triggers.repository';
import {
  AutomationStep,
  checkSteps,
  checkTrigger,
  followingStep,
  hasCycleWithoutWait,
} from './automation-definition';

const send = (id: string, next?: string): AutomationStep => ({
  id,
  type: 'send',
  template_id: 't',
  ...(next ? { next } : {}),
});

describe('automation definitions', () => {
  it('goes to the next step in the array unless a step names another', () => {
    const steps = [send('a', 'c'), send('b'), send('c')];
    expect(followingStep(steps, 0)).toBe('c');
    expect(followingStep(steps, 1)).toBe('c');
    expect(followingStep(steps, 2)).toBeNull();
  });

  it('finds loops that pass no wait, and only those', () => {
    const condition = (
      id: string,
      then: string | null,
      otherwise: string | null,
    ): AutomationStep => ({
      id,
      type: 'condition',
      if: { opened: 'a' },
      then,
      else: otherwise,
    });
    expect(hasCycleWithoutWait([send('a'), condition('c', null, 'a')])).toBe(true);
    expect(hasCycleWithoutWait([send('a', 'a')])).toBe(true);
    expect(
      hasCycleWithoutWait([
        send('a'),
        { id: 'w', type: 'wait', seconds: 60 },
        condition('c', null, 'a'),
      ]),
    ).toBe(false);
    expect(hasCycleWithoutWait([send('a'), condition('c', null, null), send('b')])).toBe(false);
  });

  it('reports every problem of the steps at its path', () => {
    const errors: ErrorDetail[] = [];
    expect(
      checkSteps(
        [
          { id: 'a', type: 'send' },
          { id: 'a', type: 'wait', seconds: 31_536_001 },
          { id: 'x'.repeat(65), type: 'exit' },
          { id: 'c', type: 'condition', if: { opened: 'c' }, then: 'zz' },
          { id: 'd', type: 'teleport' },
        ],
        errors,
      ),
    ).toBeUndefined();
    expect(errors.map((e) => `${e.field} ${e.code}`)).toEqual([
      'steps[1].id duplicate',
      'steps[2].id invalid',
      'steps[0].template_id required',
      'steps[1].seconds out_of_range',
      'steps[3].if.opened not_an_earlier_send',
      'steps[3].then unknown_step',
      'steps[3].else required',
      'steps[4].type invalid',
    ]);
  });

  it('checks triggers, their filters included', () => {
    const errors: ErrorDetail[] = [];
    expect(
      checkTrigger({ type: 'date', field: 'custom_fields.renewal', at: '07:30' }, errors),
    ).toBeDefined();
    expect(checkTrigger({ type: 'segment_entered' }, errors)).toBeUndefined();
    expect(
      checkTrigger(
        { type: 'event', name: 'x', filter: { field: 'nope', op: 'eq', value: 1 } },
        errors,
      ),
    ).toBeUndefined();
    expect(checkTrigger({ type: 'sometimes' }, errors)).toBeUndefined();
    expect(errors.map((e) => e.field)).toEqual([
      'trigger.segment_id',
      'trigger.filter.field',
      'trigger.type',
    ]);
  });

  it('makes the smallest time-ordered id of a moment', () => {
    expect(uuidFloor(new Date(0x0190c2d4a1b2))).toBe('0190c2d4-a1b2-0000-0000-000000000000');
  });
});
