import { isMachineActivity, MACHINE_WINDOW_MS } from './machine-activity';

const BROWSER =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15';

describe('isMachineActivity', () => {
  const deliveredAt = new Date('2026-11-20T10:00:00Z');
  const later = new Date(deliveredAt.getTime() + 60_000);

  it('counts a browser a minute after delivery as the person', () => {
    expect(isMachineActivity(BROWSER, deliveredAt, later)).toBe(false);
  });

  it("takes Apple's privacy proxy (bare Mozilla/5.0) and a missing agent for machines", () => {
    expect(isMachineActivity('Mozilla/5.0', deliveredAt, later)).toBe(true);
    expect(isMachineActivity(undefined, deliveredAt, later)).toBe(true);
    expect(isMachineActivity('  ', deliveredAt, later)).toBe(true);
  });

  it('takes link scanners and HTTP libraries for machines', () => {
    for (const agent of [
      'Mozilla/5.0 (compatible; Barracuda Sentinel)',
      'Mimecast-URL-Protect/1.0',
      'python-requests/2.31.0',
      'curl/8.5.0',
      'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 HeadlessChrome/120.0.0.0',
    ]) {
      expect(isMachineActivity(agent, deliveredAt, later)).toBe(true);
    }
  });

  it("keeps image proxies that fetch on the person's open", () => {
    const gmail =
      'Mozilla/5.0 (Windows NT 5.1; rv:11.0) Gecko Firefox/11.0 (via ggpht.com GoogleImageProxy)';
    expect(isMachineActivity(gmail, deliveredAt, later)).toBe(false);
  });

  it('takes anything within the window after delivery for a machine', () => {
    const soon = new Date(deliveredAt.getTime() + MACHINE_WINDOW_MS - 1);
    expect(isMachineActivity(BROWSER, deliveredAt, soon)).toBe(true);
    const after = new Date(deliveredAt.getTime() + MACHINE_WINDOW_MS);
    expect(isMachineActivity(BROWSER, deliveredAt, after)).toBe(false);
    expect(isMachineActivity(BROWSER, null, soon)).toBe(false);
  });
});
