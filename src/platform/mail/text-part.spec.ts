import { convertHtmlToText } from './text-part';

describe('convertHtmlToText', () => {
  it('keeps text and links, drops images, and leaves template fields whole', () => {
    const html =
      '<html><head><style>p{color:red}</style></head><body><h1>Hello {{first_name}}</h1>' +
      '<p>Our <a href="https://acme.test/offer?a=1&amp;b=2">spring offer</a> is here, with a long line that must not be wrapped at all</p>' +
      '<img src="https://herald.test/t/open/x" width="1"><p><a href="{{unsubscribe_url}}">Unsubscribe</a></p></body></html>';
    expect(convertHtmlToText(html)).toBe(
      'Hello {{first_name}}\n\n' +
        'Our spring offer [https://acme.test/offer?a=1&b=2] is here, with a long line that must not be wrapped at all\n\n' +
        'Unsubscribe [{{unsubscribe_url}}]',
    );
  });

  it('does not upper-case table header cells either', () => {
    expect(convertHtmlToText('<table><tr><th>{{plan}}</th></tr></table>')).toBe('{{plan}}');
  });
});
