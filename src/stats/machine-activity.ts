/**
 * Whether an open or a click was made by a machine rather than the person: a mailbox
 * provider's privacy proxy fetching every image (Apple Mail Privacy Protection fetches with the
 * bare user agent `Mozilla/5.0`), a security gateway or scanner following every link, or
 * anything at all within MACHINE_WINDOW_MS of the message's delivery, faster than anyone
 * reads. Such events are counted apart and never make an open or a click "unique".
 *
 * Image proxies that fetch when the person opens (Gmail's GoogleImageProxy, Yahoo's) are
 * people's opens and stay counted.
 */
export function isMachineActivity(
  userAgent: string | undefined,
  deliveredAt: Date | null | undefined,
  now: Date = new Date(),
): boolean {
  const agent = (userAgent ?? '').trim();
  if (agent === '' || agent === 'Mozilla/5.0') return true;
  // Bounded input: a header is at most a few KiB, and the pattern cannot backtrack.
  if (MACHINE_AGENT.test(agent.slice(0, 512))) return true;
  return (
    deliveredAt !== null &&
    deliveredAt !== undefined &&
    now.getTime() - deliveredAt.getTime() < MACHINE_WINDOW_MS
  );
}

/** Opens and clicks this soon after delivery are a machine's. */
export const MACHINE_WINDOW_MS = 5_000;

const MACHINE_AGENT =
  /bot\b|crawler|spider|scanner|barracuda|mimecast|proofpoint|messagelabs|symantec|trendmicro|fortinet|forcepoint|sophos|cisco|ironport|safelinks|headlesschrome|phantomjs|python-requests|python-urllib|curl\/|wget\/|go-http-client|java\/|okhttp|libwww|httpclient/i;
