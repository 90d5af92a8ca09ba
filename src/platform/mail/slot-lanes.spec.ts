import { SlotLanes } from './slot-lanes';

describe('SlotLanes', () => {
  /** Takes a slot in the background and records the order in which slots were granted. */
  function taker(lanes: SlotLanes, granted: string[]) {
    const releases = new Map<string, () => void>();
    const take = (name: string, lane: 'urgent' | 'bulk') =>
      lanes.take(lane).then((release) => {
        granted.push(name);
        releases.set(name, release);
      });
    return { take, release: (name: string) => releases.get(name)!() };
  }

  it('hands a freed slot to an urgent waiter before every bulk waiter, each lane in order', async () => {
    const lanes = new SlotLanes(1);
    const granted: string[] = [];
    const { take, release } = taker(lanes, granted);
    await take('first', 'bulk');
    const waiting = [
      take('bulk-1', 'bulk'),
      take('bulk-2', 'bulk'),
      take('urgent-1', 'urgent'),
      take('urgent-2', 'urgent'),
    ];
    for (const name of ['first', 'urgent-1', 'urgent-2', 'bulk-1']) {
      release(name);
      await Promise.resolve();
      await Promise.resolve();
    }
    await Promise.all(waiting);
    expect(granted).toEqual(['first', 'urgent-1', 'urgent-2', 'bulk-1', 'bulk-2']);
  });

  it('never hands out more slots than it has, however often one is released', async () => {
    const lanes = new SlotLanes(2);
    const granted: string[] = [];
    const { take, release } = taker(lanes, granted);
    await Promise.all([take('a', 'bulk'), take('b', 'urgent')]);
    const third = take('c', 'bulk');
    const fourth = take('d', 'bulk');
    release('a');
    release('a');
    await third;
    await Promise.resolve();
    expect(granted).toEqual(['a', 'b', 'c']);
    release('b');
    await fourth;
    expect(granted).toEqual(['a', 'b', 'c', 'd']);
  });
});
