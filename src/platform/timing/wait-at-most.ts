/**
 * Waits until `work` has settled or `ms` have passed, whichever comes first; never rejects.
 * For an optimisation a boot waits for (a warm-up), but not for longer than it is worth.
 */
export async function waitAtMost(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  await Promise.race([work.catch(() => undefined), limit]);
  clearTimeout(timer);
}
