import { cpuMs } from '../../../test/support/cpu-time';
import { locationOf, rewriteLinks } from './click-tracking';

const track = (html: string) => rewriteLinks(html, (url) => `T(${url})`);

describe('rewriteLinks', () => {
  it.each([
    ['<a href="https://a.test/x">x</a>', '<a href="T(https://a.test/x)">x</a>'],
    ["<A HREF='http://a.test/?q=1&amp;r=2'>x</A>", '<A HREF="T(http://a.test/?q=1&r=2)">x</A>'],
    ['<a class="b" href=https://a.test/u>x</a>', '<a class="b" href="T(https://a.test/u)">x</a>'],
    [
      '<a title="1 > 2" href="https://a.test/">x</a>',
      '<a title="1 > 2" href="T(https://a.test/)">x</a>',
    ],
    ['<a\nhref = "https://a.test/">x</a>', '<a\nhref = "T(https://a.test/)">x</a>'],
  ])('rewrites %j', (html, expected) => {
    expect(track(html)).toBe(expected);
  });

  it.each([
    '<a href="mailto:a@b.test">x</a>',
    '<a href="/relative">x</a>',
    '<a data-href="https://a.test/">x</a>',
    '<abbr href="https://a.test/">x</abbr>',
    '<a name="top">x</a>',
    '<a href="https://a.test/',
    '<a <a <a href',
    'no links at all',
  ])('leaves %j alone', (html) => {
    expect(track(html)).toBe(html);
  });

  it('keeps a link when the callback declines it, and rewrites only the first href', () => {
    const html =
      '<a href="https://keep.test/">k</a><a href="https://a.test/" href="https://b.test/">';
    const out = rewriteLinks(html, (url) => (url.includes('keep') ? undefined : 'NEW'));
    expect(out).toBe('<a href="https://keep.test/">k</a><a href="NEW" href="https://b.test/">');
  });

  it('takes time linear in the HTML, however many links or unclosed tags it has', () => {
    // 80,000 repetitions of each: linear work takes well under a second of CPU (0.5 s at most
    // measured on a slow machine); the backtracking regex this replaced took minutes on the
    // mixed quotes. CPU time, so a loaded machine's other work does not count.
    for (const unit of [
      '<a href="https://a.test/x">l</a>',
      `<a href="http://x'`,
      '<a href="https://x',
      '<a ',
      '<a x=',
    ]) {
      expect(cpuMs(() => rewriteLinks(unit.repeat(80_000), (url) => url))).toBeLessThan(3000);
    }
  });
});

describe('locationOf', () => {
  it.each([
    ['https://a.test/path?q=1', 'https://a.test/path?q=1'],
    ['https://bücher.test/é?q=ü', 'https://xn--bcher-kva.test/%C3%A9?q=%C3%BC'],
    ['https://a.test/中文', 'https://a.test/%E4%B8%AD%E6%96%87'],
  ])('%s → %s', (target, location) => {
    expect(locationOf(target)).toBe(location);
  });

  it.each(['https://a.test/\ud800', 'https://a.test/\u0000', 'https://[bad/é'])(
    'cannot write %j',
    (target) => {
      expect(locationOf(target)).toBeUndefined();
    },
  );
});
