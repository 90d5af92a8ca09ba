/**
 * A small seeded generator (mulberry32) for property-style tests, so that a failure can be
 * replayed from the seed it prints.
 */
export function randomness(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (below: number) => Math.floor(next() * below);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)];
  return { next, int, pick };
}

export type Random = ReturnType<typeof randomness>;
