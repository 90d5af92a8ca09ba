import { Prisma, Subscriber } from '../generated/prisma/client';
import { ValidationFailedError } from '../platform/errors/api-errors';
import {
  closeTemplateWorkers,
  compileMessage,
  MAX_EXPRESSIONS,
  MessageContent,
  subscriberVariables,
  TemplateRenderError,
} from './template-renderer';

afterAll(() => closeTemplateWorkers());

const content = (overrides: Partial<MessageContent> = {}): MessageContent => ({
  subject: 'Hi',
  html: null,
  text: 'Hi',
  ...overrides,
});

async function detailsOf(message: MessageContent) {
  try {
    await compileMessage(message);
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
  it('merges variables into subject, html and text', async () => {
    const message = await compileMessage({
      subject: 'Hello {{first_name}}',
      html: '<p>Hi {{first_name}} from {{city}}</p>',
      text: 'Hi {{first_name}}, plan {{plan}}',
    });
    expect(await message.render({ first_name: 'Ada', city: 'London', plan: 'pro' })).toEqual({
      subject: 'Hello Ada',
      html: '<p>Hi Ada from London</p>',
      text: 'Hi Ada, plan pro',
    });
  });

  it('compiles once and renders for many recipients', async () => {
    const message = await compileMessage(content({ text: '{{n}}' }));
    const texts = await Promise.all([1, 2, 3].map(async (n) => (await message.render({ n })).text));
    expect(texts).toEqual(['1', '2', '3']);
  });

  it('escapes HTML in html only', async () => {
    const value = '<b>Tom & "Jerry"</b>';
    const message = await compileMessage({ subject: '{{v}}', html: '<p>{{v}}</p>', text: '{{v}}' });
    expect(await message.render({ v: value })).toEqual({
      subject: value,
      html: '<p>&lt;b&gt;Tom &amp; &quot;Jerry&quot;&lt;/b&gt;</p>',
      text: value,
    });
  });

  it('lets triple braces through unescaped in html', async () => {
    const message = await compileMessage(content({ html: '{{{snippet}}}' }));
    expect((await message.render({ snippet: '<i>x</i>' })).html).toBe('<i>x</i>');
  });

  it('renders missing variables empty', async () => {
    const message = await compileMessage({
      subject: 'Hi {{first_name}}!',
      html: '<p>{{a.b.c}}</p>',
      text: '[{{nope}}]',
    });
    expect(await message.render({})).toEqual({ subject: 'Hi !', html: '<p></p>', text: '[]' });
  });

  it('keeps a subject on one line', async () => {
    const message = await compileMessage(content({ subject: 'Hi {{name}}' }));
    expect((await message.render({ name: 'Ada\r\nBcc: all@example.com' })).subject).toBe(
      'Hi Ada Bcc: all@example.com',
    );
  });

  it('leaves an absent body null', async () => {
    const message = await compileMessage(content({ html: '<p>x</p>', text: null }));
    expect((await message.render({})).text).toBeNull();
  });

  it('supports the built-in block helpers and lookup', async () => {
    const message = await compileMessage(
      content({
        text:
          '{{#if vip}}VIP {{/if}}{{#unless vip}}regular {{/unless}}' +
          '{{#each tags}}[{{this}}]{{/each}} {{#with address}}{{city}}{{/with}} ' +
          '{{lookup custom_fields "favourite colour"}}',
      }),
    );
    const rendered = await message.render({
      vip: true,
      tags: ['a', 'b'],
      address: { city: 'Paris' },
      custom_fields: { 'favourite colour': 'green' },
    });
    expect(rendered.text).toBe('VIP [a][b] Paris green');
  });

  it('does not reach prototypes', async () => {
    const message = await compileMessage(
      content({ text: '[{{constructor}}][{{constructor.name}}][{{__proto__}}][{{name.length}}]' }),
    );
    expect((await message.render({ name: 'Ada' })).text).toBe('[][][][3]');
  });

  describe('rejects with one invalid_template detail per failing field', () => {
    it('says where each field goes wrong: in the message, and as line and column', async () => {
      const details = await detailsOf(
        content({ subject: 'Hi {{first_name', html: '<p>ok</p>\n<p>{{#if x}}</p>' }),
      );
      expect(details).toEqual([
        {
          field: 'subject',
          code: 'invalid_template',
          message: 'On line 1, column 4: this {{…}} tag is never closed with }}.',
          line: 1,
          column: 4,
        },
        {
          field: 'html',
          code: 'invalid_template',
          message: 'On line 2, column 4: {{#if}} is never closed; add {{/if}} where it ends.',
          line: 2,
          column: 4,
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
      // lookup with one argument throws at render, and only when that argument is set.
      ['lookup with one argument', '{{lookup a}}', 'lookup requires exactly two arguments'],
      [
        'lookup in a subexpression',
        '{{#with (lookup a)}}x{{/with}}',
        'lookup requires exactly two',
      ],
      ['a mismatched block', '{{#if a}}x{{/each}}', '{{#if}} is closed by {{/each}}'],
    ])('%s', async (_, text, message) => {
      expect(await detailsOf(content({ text }))).toEqual([
        {
          field: 'text',
          code: 'invalid_template',
          message: expect.stringContaining(message),
          line: 1,
          column: expect.any(Number),
        },
      ]);
    });
  });
});

describe('bounds', () => {
  it('refuses more merge fields than it compiles, without a worker', async () => {
    const text = '{{a}}'.repeat(MAX_EXPRESSIONS + 1);
    expect(await detailsOf(content({ text }))).toEqual([
      { field: 'text', code: 'too_complex', message: expect.stringContaining('merge fields') },
    ]);
  });

  it('compiles a large template off this thread: timers keep firing meanwhile', async () => {
    const html = '<p>{{first_name}} {{#if vip}}VIP{{/if}}</p>\n'.repeat(MAX_EXPRESSIONS / 3 - 1);
    let longestGap = 0;
    let last = performance.now();
    const ticker = setInterval(() => {
      const now = performance.now();
      longestGap = Math.max(longestGap, now - last);
      last = now;
    }, 10);
    try {
      const message = await compileMessage(content({ html }));
      const rendered = await message.render({ first_name: 'Ada', vip: true });
      expect(rendered.html).toContain('<p>Ada VIP</p>');
    } finally {
      clearInterval(ticker);
    }
    expect(longestGap).toBeLessThan(500);
  });

  it('stops a render that loops over too much, and the next one still works', async () => {
    const loops =
      '{{#each @root.a}}{{#each @root.a}}{{#each @root.a}}{{#each @root.a}}x{{/each}}{{/each}}{{/each}}{{/each}}';
    const message = await compileMessage(content({ text: loops }));
    const a = Array.from({ length: 200 }, (_, i) => i);
    const error = await message.render({ a }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TemplateRenderError);
    expect((error as TemplateRenderError).details).toEqual([
      { field: 'text', code: 'render_failed', message: expect.any(String) },
    ]);
    expect((await message.render({ a: [1, 2] })).text).toBe('xxxxxxxxxxxxxxxx');
  }, 30_000);

  it('renders on a worker that lost the compiled fields (restarted), compiling them again', async () => {
    const message = await compileMessage(content({ subject: 'Hi {{name}}', text: 'Bye {{name}}' }));
    await closeTemplateWorkers();
    expect(await message.render({ name: 'Ada' })).toEqual({
      subject: 'Hi Ada',
      html: null,
      text: 'Bye Ada',
    });
    // Compiling the same message again asks no worker; rendering still works.
    await closeTemplateWorkers();
    const again = await compileMessage(content({ subject: 'Hi {{name}}', text: 'Bye {{name}}' }));
    expect((await again.render({ name: 'Bo' })).text).toBe('Bye Bo');
  });

  it('refuses a rendered field over 4 MiB', async () => {
    const message = await compileMessage(content({ html: '{{v}}{{v}}{{v}}{{v}}{{v}}' }));
    const error = await message.render({ v: 'x'.repeat(1024 * 1024) }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TemplateRenderError);
    expect((error as TemplateRenderError).field).toBe('html');
  });
});

describe('renderHere: straight-line templates on the calling thread', () => {
  const cases: { name: string; message: MessageContent; variables: Record<string, unknown> }[] = [
    {
      name: 'merge fields, escaping in html only, triple braces',
      message: {
        subject: 'Hello {{first_name}} {{v}}',
        html: '<p>{{v}} {{{v}}} {{& v}}</p><a href="{{unsubscribe_url}}">x</a>',
        text: '{{v}}\n{{missing.deep.path}}',
      },
      variables: {
        first_name: 'Ada',
        v: '<b>Tom & "Jerry" `=\'</b>',
        unsubscribe_url: 'u?a=1&b=2',
      },
    },
    {
      name: 'if, unless, else chains, with and lookup',
      message: {
        subject: '{{#if vip}}VIP{{else if gold}}Gold{{else}}Plain{{/if}}',
        html: null,
        text:
          '{{#unless vip}}regular {{/unless}}{{#with address}}{{city}}{{/with}} ' +
          '{{lookup custom_fields "favourite colour"}} {{#if empty}}x{{else}}y{{/if}}',
      },
      variables: {
        gold: 1,
        address: { city: 'Paris' },
        custom_fields: { 'favourite colour': 'green' },
        empty: [],
      },
    },
    {
      name: 'prototypes out of reach, values of every JSON type, a subject on one line',
      message: {
        subject: 'Hi {{name}}',
        html: '[{{constructor}}][{{__proto__}}][{{name.length}}][{{tags}}][{{obj}}][{{n}}][{{no}}]',
        text: null,
      },
      variables: { name: 'Ada\r\nBcc: x', tags: ['a', 'b'], obj: { a: 1 }, n: 0, no: false },
    },
    {
      name: 'blocks nested eleven deep (compiled on a worker first, then here)',
      message: {
        subject: 'x',
        html: null,
        text: `${'{{#if a}}'.repeat(11)}{{b}}${'{{/if}}'.repeat(11)}`,
      },
      variables: { a: true, b: 'deep' },
    },
  ];

  for (const { name, message, variables } of cases) {
    it(`renders what a worker renders: ${name}`, async () => {
      const compiled = await compileMessage(message);
      expect(compiled.renderHere).toBeDefined();
      expect(compiled.renderHere!(variables)).toEqual(await compiled.render(variables));
    });
  }

  it('fails the same way as a worker: the field and the words', async () => {
    const compiled = await compileMessage(content({ html: '{{v}}{{v}}{{v}}{{v}}{{v}}' }));
    const v = 'x'.repeat(1024 * 1024);
    const here = (() => {
      try {
        compiled.renderHere!({ v });
      } catch (error) {
        return error;
      }
    })();
    const there = await compiled.render({ v }).catch((error: unknown) => error);
    expect(here).toBeInstanceOf(TemplateRenderError);
    expect(here).toEqual(there);
    expect((here as TemplateRenderError).field).toBe('html');
  });

  it('is left out for a template that may repeat itself or is large', async () => {
    const absent = async (overrides: Partial<MessageContent>) =>
      (await compileMessage(content(overrides))).renderHere;
    expect(await absent({ text: '{{#each tags}}[{{this}}]{{/each}}' })).toBeUndefined();
    // A block over a variable iterates when the value is an array.
    expect(await absent({ text: '{{#tags}}[{{this}}]{{/tags}}' })).toBeUndefined();
    expect(await absent({ html: '{{#if a}}{{#each b}}x{{/each}}{{/if}}' })).toBeUndefined();
    expect(await absent({ text: '{{a}}'.repeat(201) })).toBeUndefined();
    expect(await absent({ html: `<p>${'x'.repeat(128 * 1024)}</p>` })).toBeUndefined();
    expect(await absent({ text: '{{a}}'.repeat(200) })).toBeDefined();
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
    expect(Object.getOwnPropertyDescriptor(variables, '__proto__')?.value).toEqual({
      polluted: true,
    });
  });

  it('lets every API field win over a custom key of its name and keeps the other custom keys', () => {
    const customFields = { email: 'other@example.com', statistics: 'none', zeta: 1, alpha: 2 };
    const variables = subscriberVariables(subscriber({ customFields }));
    expect(variables.email).toBe('Ada@example.com');
    expect(variables.statistics).toEqual(expect.objectContaining({ sent: expect.any(Number) }));
    expect([variables.zeta, variables.alpha]).toEqual([1, 2]);
  });

  it('renders a subscriber through a template', async () => {
    const message = await compileMessage({
      subject: 'For {{first_name}} {{last_name}}',
      html: null,
      text: '{{#each tags}}{{this}} {{/each}}{{plan}} {{custom_fields.plan}}',
    });
    const variables = subscriberVariables(subscriber({ customFields: { plan: 'pro' } }));
    expect(await message.render(variables)).toEqual({
      subject: 'For Ada Lovelace',
      html: null,
      text: 'vip beta pro pro',
    });
  });
});
