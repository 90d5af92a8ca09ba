import { Prisma, Subscriber } from '../generated/prisma/client';
import { ValidationFailedError } from '../platform/errors/api-errors';
import { compileMessage, MessageContent, subscriberVariables } from './template-renderer';

const content = (overrides: Partial<MessageContent> = {}): MessageContent => ({
  subject: 'Hi',
  html: null,
  text: 'Hi',
  ...overrides,
});

function detailsOf(message: MessageContent) {
  try {
    compileMessage(message);
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationFailedError);
    return (error as ValidationFailedError).details;
  }
  throw new Error('expected the template to be rejected');
}

function subscriber(overrides: Partial<Subscriber> = {}): Subscriber {
  const at = new Date('2024-05-01T10:00:00.000Z');
  return {
    id: '01900000-0000-7000-8000-000000000001',
    accountId: '01900000-0000-7000-8000-000000000002',
    email: 'Ada@example.com',
    emailNormalized: 'ada@example.com',
    firstName: 'Ada',
    lastName: 'Lovelace',
    phone: null,
    address1: null,
    address2: null,
    city: 'London',
    state: null,
    zip: null,
    countryCode: 'GB',
    birthdate: null,
    gender: null,
    incomeLevel: null,
    membershipStatus: 'gold',
    status: 'subscribed',
    timezone: null,
    interests: ['maths'],
    tags: ['vip', 'beta'],
    customFields: {},
    socialMedia: [],
    importedStats: {},
    statSent: 0,
    statDelivered: 0,
    statOpens: 0,
    statClicks: 0,
    statHardBounces: 0,
    statSoftBounces: 0,
    statRevenueCents: BigInt(0),
    lastSentAt: null,
    lastOpenAt: null,
    lastClickAt: null,
    softBounceStreak: 0,
    createdAt: at,
    updatedAt: at,
    ...overrides,
  };
}

describe('compileMessage', () => {
  it('merges variables into subject, html and text', () => {
    const message = compileMessage({
      subject: 'Hello {{first_name}}',
      html: '<p>Hi {{first_name}} from {{city}}</p>',
      text: 'Hi {{first_name}}, plan {{plan}}',
    });
    expect(message.render({ first_name: 'Ada', city: 'London', plan: 'pro' })).toEqual({
      subject: 'Hello Ada',
      html: '<p>Hi Ada from London</p>',
      text: 'Hi Ada, plan pro',
    });
  });

  it('compiles once and renders for many recipients', () => {
    const message = compileMessage(content({ text: '{{n}}' }));
    expect([1, 2, 3].map((n) => message.render({ n }).text)).toEqual(['1', '2', '3']);
  });

  it('escapes HTML in html only', () => {
    const value = '<b>Tom & "Jerry"</b>';
    const message = compileMessage({ subject: '{{v}}', html: '<p>{{v}}</p>', text: '{{v}}' });
    expect(message.render({ v: value })).toEqual({
      subject: value,
      html: '<p>&lt;b&gt;Tom &amp; &quot;Jerry&quot;&lt;/b&gt;</p>',
      text: value,
    });
  });

  it('lets triple braces through unescaped in html', () => {
    const message = compileMessage(content({ html: '{{{snippet}}}' }));
    expect(message.render({ snippet: '<i>x</i>' }).html).toBe('<i>x</i>');
  });

  it('renders missing variables empty', () => {
    const message = compileMessage({
      subject: 'Hi {{first_name}}!',
      html: '<p>{{a.b.c}}</p>',
      text: '[{{nope}}]',
    });
    expect(message.render({})).toEqual({ subject: 'Hi !', html: '<p></p>', text: '[]' });
  });

  it('keeps a subject on one line', () => {
    const message = compileMessage(content({ subject: 'Hi {{name}}' }));
    expect(message.render({ name: 'Ada\r\nBcc: all@example.com' }).subject).toBe(
      'Hi Ada Bcc: all@example.com',
    );
  });

  it('leaves an absent body null', () => {
    expect(compileMessage(content({ html: '<p>x</p>', text: null })).render({}).text).toBeNull();
  });

  it('supports the built-in block helpers and lookup', () => {
    const message = compileMessage(
      content({
        text:
          '{{#if vip}}VIP {{/if}}{{#unless vip}}regular {{/unless}}' +
          '{{#each tags}}[{{this}}]{{/each}} {{#with address}}{{city}}{{/with}} ' +
          '{{lookup custom_fields "favourite colour"}}',
      }),
    );
    const rendered = message.render({
      vip: true,
      tags: ['a', 'b'],
      address: { city: 'Paris' },
      custom_fields: { 'favourite colour': 'green' },
    });
    expect(rendered.text).toBe('VIP [a][b] Paris green');
  });

  it('does not reach prototypes', () => {
    const message = compileMessage(
      content({ text: '[{{constructor}}][{{constructor.name}}][{{__proto__}}][{{name.length}}]' }),
    );
    expect(message.render({ name: 'Ada' }).text).toBe('[][][][3]');
  });

  describe('rejects with one invalid_template detail per failing field', () => {
    it('reports the parser message', () => {
      const details = detailsOf(content({ subject: 'Hi {{first_name', html: '<p>{{#if x}}</p>' }));
      expect(details).toEqual([
        {
          field: 'subject',
          code: 'invalid_template',
          message: expect.stringContaining('Parse error on line 1'),
        },
        {
          field: 'html',
          code: 'invalid_template',
          message: expect.stringContaining('Parse error'),
        },
      ]);
    });

    it.each([
      ['an unknown helper', '{{shout name}}', 'unknown helper shout'],
      ['the log helper', '{{log "x"}}', 'unknown helper log'],
      ['a partial', '{{#if a}}{{> footer}}{{/if}}', 'Partials'],
      ['a partial block', '{{#> layout}}x{{/layout}}', 'Partials'],
      ['a decorator', '{{* deco}}', 'Decorators'],
      [
        'if without an argument, even in a branch not taken',
        '{{#if a}}{{#if}}x{{/if}}{{/if}}',
        '#if requires exactly one argument',
      ],
      ['each with two arguments', '{{#each a b}}x{{/each}}', '#each requires exactly one argument'],
      ['a mismatched block', '{{#if a}}x{{/each}}', "if doesn't match each"],
    ])('%s', (_, text, message) => {
      expect(detailsOf(content({ text }))).toEqual([
        { field: 'text', code: 'invalid_template', message: expect.stringContaining(message) },
      ]);
    });
  });
});

describe('subscriberVariables', () => {
  it('exposes the API fields in snake_case', () => {
    const variables = subscriberVariables(subscriber());
    expect(variables).toMatchObject({
      email: 'Ada@example.com',
      first_name: 'Ada',
      last_name: 'Lovelace',
      city: 'London',
      country_code: 'GB',
      membership_status: 'gold',
      tags: ['vip', 'beta'],
      interests: ['maths'],
      created_at: '2024-05-01T10:00:00.000Z',
    });
  });

  it('puts custom fields at top level, keeps custom_fields, and lets API fields win', () => {
    const customFields = { plan: 'pro', first_name: 'Imposter', nested: { a: 1 } };
    const variables = subscriberVariables(subscriber({ customFields }));
    expect(variables).toMatchObject({
      plan: 'pro',
      first_name: 'Ada',
      nested: { a: 1 },
      custom_fields: customFields,
    });
  });

  it('keeps a custom key named __proto__ a plain key', () => {
    const customFields = JSON.parse('{"__proto__": {"polluted": true}}') as Prisma.JsonObject;
    const variables = subscriberVariables(subscriber({ customFields }));
    expect(Object.getPrototypeOf(variables)).toBe(Object.prototype);
    expect((variables as { polluted?: unknown }).polluted).toBeUndefined();
  });

  it('renders a subscriber through a template', () => {
    const message = compileMessage({
      subject: 'For {{first_name}} {{last_name}}',
      html: null,
      text: '{{#each tags}}{{this}} {{/each}}{{plan}} {{custom_fields.plan}}',
    });
    const variables = subscriberVariables(subscriber({ customFields: { plan: 'pro' } }));
    expect(message.render(variables)).toEqual({
      subject: 'For Ada Lovelace',
      html: null,
      text: 'vip beta pro pro',
    });
  });
});
