import { compileMessage } from '../../templates/template-renderer';
import { senderVariables, withOptOut } from './opt-out-footer';

const vars = {
  ...senderVariables({ name: 'Parts & Co', postalAddress: '1 Main St\n  Springfield\n' }),
  unsubscribe_url: 'https://h.test/unsubscribe/t',
  preferences_url: 'https://h.test/preferences/t',
};

describe('withOptOut', () => {
  it('leaves parts that place an opt-out link alone', () => {
    const content = {
      subject: 's',
      html: '<a href="{{unsubscribe_url}}">x</a>',
      text: 'Manage: {{ preferences_url }}',
    };
    expect(withOptOut(content)).toEqual(content);
  });

  it('appends a footer with name, address and links to each part lacking one', async () => {
    const content = withOptOut({
      subject: 's',
      html: '<html><body><p>Hi</p></body></html>',
      text: 'Hi\n\n',
    });
    const rendered = await (await compileMessage(content)).render(vars);
    expect(rendered.html).toMatch(/^<html><body><p>Hi<\/p><div .*<\/div><\/body><\/html>$/s);
    expect(rendered.html).toContain('Parts &amp; Co · 1 Main St, Springfield');
    expect(rendered.html).toContain('href="https://h.test/unsubscribe/t"');
    expect(rendered.html).toContain('href="https://h.test/preferences/t"');
    expect(rendered.text).toBe(
      'Hi\n\n--\nParts & Co, 1 Main St, Springfield\n' +
        'Unsubscribe: https://h.test/unsubscribe/t\n' +
        'Manage your subscription: https://h.test/preferences/t',
    );
  });

  it('shows the name alone when no postal address is set', async () => {
    const compiled = await compileMessage(withOptOut({ subject: 's', html: null, text: 'Hi' }));
    const rendered = await compiled.render({
      ...vars,
      ...senderVariables({ name: 'Solo', postalAddress: null }),
    });
    expect(rendered.text).toContain('--\nSolo\nUnsubscribe:');
  });
});
