import { offsetOf } from '../ui/text-position';
import { ApiFailure } from './client';
import { ErrorDetail, fieldLabel, isWithin, placeWithin, plainMessage } from './messages';

const detail = (field: string, code: string, message: string): ErrorDetail => ({
  field,
  code,
  message,
});

/** Whatever a sentence says, it is one: a capital, a full stop, no validator jargon. */
function expectPlain(sentence: string) {
  expect(sentence).toMatch(/^[A-Z“{]/);
  expect(sentence).toMatch(/[.!?]$/);
  expect(sentence).not.toMatch(/\bis(Email|String|Defined|Uuid|NotEmpty)\b|_id\b|\$property/);
  expect(sentence).not.toMatch(/shorter than or equal|longer than or equal/);
}

describe('plainMessage: the validator’s codes in plain sentences', () => {
  it.each([
    // [the server's detail, the sentence]
    [
      detail('email', 'invalid_format', 'email must be an email address'),
      'Enter an email address, like name@example.com.',
    ],
    [
      detail('email', 'missing', 'email should not be null or undefined'),
      'Enter an email address.',
    ],
    [
      detail('first_name', 'missing', 'first_name should not be null or undefined'),
      'This field is required.',
    ],
    [
      detail('name', 'too_long', 'name must be shorter than or equal to 255 characters'),
      'Use at most 255 characters.',
    ],
    [
      detail('from', 'too_long', 'from must be shorter than or equal to 320 characters'),
      'Use at most 320 characters.',
    ],
    [
      detail('html', 'too_long', 'html must be shorter than or equal to 524288 characters'),
      'Use at most 524,288 characters.',
    ],
    [detail('tags', 'too_long', 'tags must contain at most 100 items.'), 'Use at most 100 items.'],
    [
      detail(
        'tags',
        'too_long',
        'each value in tags must be shorter than or equal to 100 characters',
      ),
      'Keep each one to at most 100 characters.',
    ],
    [detail('password', 'too_short', 'Use at least 12 characters.'), 'Use at least 12 characters.'],
    [
      detail('password', 'too_long', 'Use at most 72 bytes.'),
      'Use at most 72 bytes (accented letters and symbols take more than one).',
    ],
    [detail('name', 'too_short', 'Give the key a name.'), 'Enter a name.'],
    [
      detail('custom_fields', 'too_many_keys', 'custom_fields must have at most 100 keys'),
      'Use at most 100 fields.',
    ],
    [
      detail('custom_fields', 'too_large', 'custom_fields must take at most 16 KiB as JSON'),
      'This is too large: at most 16 KiB.',
    ],
    [
      detail('birthdate', 'out_of_range', 'birthdate must be between 1900-01-01 and today'),
      'Enter a date between 1900-01-01 and today.',
    ],
    [
      detail(
        'birthdate',
        'invalid_format',
        'birthdate must be a date (YYYY-MM-DD) or a date-time with offset',
      ),
      'Enter a real date, like 1990-12-31.',
    ],
    [
      detail(
        'status',
        'invalid_value',
        'status must be one of the following values: subscribed, unsubscribed',
      ),
      'Choose one of: subscribed, unsubscribed.',
    ],
    [
      detail(
        'from',
        'invalid_format',
        'from must be an email address or "Name <address>" of at most 320 characters',
      ),
      'Enter a sender address, like news@example.com or Acme <news@example.com>.',
    ],
    [
      detail(
        'name',
        'invalid_format',
        'name must be a domain name such as acme.example (no scheme, path or address)',
      ),
      'Enter a domain name, like acme.com: no https://, path or @.',
    ],
    [
      detail('subject', 'invalid_format', 'subject must be one line'),
      'Keep the subject on one line.',
    ],
    [
      detail('template_id', 'required', 'A campaign needs a template_id, or html and/or text.'),
      'Choose a template.',
    ],
    [
      detail('template_id', 'not_found', 'No such template.'),
      'That template no longer exists. Choose another.',
    ],
    [
      detail(
        'to',
        'suppressed',
        'This address is on the suppression list (manual); removing it (DELETE /v1/suppressions/{email}) is the way to mail it again.',
      ),
      'This address is on the suppression list. Remove it under Suppressions to mail it again.',
    ],
    [
      detail(
        'from',
        'unverified_domain',
        'acme.test is not a verified sender domain of this account. Add it under /v1/domains, publish its DNS records and verify it.',
      ),
      'The domain acme.test is not one of your verified sender domains yet. Add it under Sender domains and verify it first.',
    ],
    [
      detail(
        'postal_address',
        'invalid_characters',
        'postal_address contains a NUL character or an unpaired surrogate.',
      ),
      'Remove the invisible control characters (such as NUL) or broken emoji from this text.',
    ],
    [
      detail('foo', 'unknown_field', 'foo is not a field of this request.'),
      'This field is not accepted here.',
    ],
    [
      detail('segment_id', 'invalid_format', 'segment_id must be a segment id'),
      'Choose an audience from the list.',
    ],
    [detail('send_at', 'out_of_range', 'send_at is in the past.'), 'Choose a time in the future.'],
    [
      detail('send_at', 'out_of_range', 'send_at is more than a year away.'),
      'Choose a time within a year from now.',
    ],
    [
      detail(
        'rate_per_minute',
        'invalid_type',
        'rate_per_minute must be a whole number of messages per minute',
      ),
      'Enter a whole number.',
    ],
    [
      detail('rate_per_minute', 'out_of_range', 'rate_per_minute must not be less than 1'),
      'Enter 1 or more.',
    ],
    [
      detail('emails[2]', 'invalid_format', 'emails[2] must be an email address'),
      'Enter an email address, like name@example.com.',
    ],
    [
      detail('emails', 'invalid_value', 'emails must name at least one address'),
      'This must name at least one address.',
    ],
    [
      detail('html', 'html_or_text_required', 'A template needs html, text or both.'),
      'Write an HTML body, a plain-text body, or both.',
    ],
  ])('%j', (given, expected) => {
    expect(plainMessage(given)).toBe(expected);
    expectPlain(plainMessage(given));
  });

  it('keeps Herald’s own sentences: they were written for people already', () => {
    for (const message of [
      'A subscriber with this email already exists.',
      'Someone already signs in with this email.',
      'Already a member of this account.',
    ]) {
      expect(plainMessage(detail('email', 'already_exists', message))).toBe(message);
    }
  });

  it('keeps a template error’s line and column', () => {
    const error = {
      ...detail(
        'html',
        'invalid_template',
        'On line 2, column 4: {{#if}} is never closed; add {{/if}} where it ends.',
      ),
      line: 2,
      column: 4,
    };
    expect(plainMessage(error)).toBe(error.message);
  });

  it('tidies a message for a code it does not know: no raw path, a sentence', () => {
    expect(plainMessage(detail('send_at', 'too_soon', 'send_at must be in the future'))).toBe(
      'This must be in the future.',
    );
    expect(
      plainMessage(detail('social_media[0].platform', 'brand_new', 'platform must be a string')),
    ).toBe('This must be a string.');
  });

  it('falls back to a generic sentence rather than a developer’s message', () => {
    const generic = plainMessage(
      detail('tags', 'invalid_type', 'each value in tags must be a string'),
    );
    expect(generic).toBe('This is not the kind of value expected here.');
    expectPlain(plainMessage(detail('x', 'too_long', 'x is way too long')));
  });

  it('reads the limit, not a number in the path', () => {
    expect(
      plainMessage(
        detail(
          'filter.and[1].value',
          'too_long',
          'filter.and[1].value is longer than 1000 characters.',
        ),
      ),
    ).toBe('Use at most 1,000 characters.');
  });
});

describe('paths in words', () => {
  it.each([
    ['first_name', 'First name'],
    ['html', 'HTML body'],
    ['template_id', 'Template'],
    ['tags[3]', 'Tag 4'],
    ['emails[1]', 'Address 2'],
    ['custom_fields.shoe_size', 'Custom fields, “shoe_size”'],
    ['social_media[0].platform', 'Social media, item 1, “platform”'],
  ])('%s → %s', (path, label) => {
    expect(fieldLabel(path)).toBe(label);
  });

  it('says where within a form field a problem is', () => {
    expect(placeWithin('tags[3]', 'tags')).toBe('Tag 4');
    expect(placeWithin('social_media[0].platform', 'social_media')).toBe('Item 1, “platform”');
    expect(placeWithin('custom_fields.shoe_size', 'custom_fields')).toBe('“shoe_size”');
    expect(placeWithin('email', 'email')).toBe('');
  });

  it('matches a field and what lies within it, nothing else', () => {
    expect(isWithin('tags', 'tags')).toBe(true);
    expect(isWithin('tags[2]', 'tags')).toBe(true);
    expect(isWithin('custom_fields.a', 'custom_fields')).toBe(true);
    expect(isWithin('tagsx', 'tags')).toBe(false);
    expect(isWithin('name', 'account_name')).toBe(false);
  });
});

describe('ApiFailure: messages at fields, and the rest', () => {
  const failure = new ApiFailure(
    422,
    'The request failed validation on email, tags[1], tags[4], reply_to.',
    [
      detail('email', 'invalid_format', 'email must be an email address'),
      detail('tags[1]', 'too_long', 'tags[1] must be shorter than or equal to 100 characters'),
      detail('tags[4]', 'invalid_type', 'tags[4] must be a string'),
      detail('reply_to', 'invalid_format', 'reply_to must be an email address'),
    ],
  );

  it('gives each form field its own sentence, saying where within it', () => {
    expect(failure.fieldMessage('email')).toBe('Enter an email address, like name@example.com.');
    expect(failure.fieldMessage('tags')).toBe(
      'Tag 2: Use at most 100 characters. Tag 5: This is not the kind of value expected here.',
    );
    expect(failure.fieldMessage('first_name')).toBeUndefined();
  });

  it('explains, labelled, what the form has no field for, and nothing it shows', () => {
    expect(failure.explain({ except: ['email', 'tags'] })).toEqual([
      'Reply to: Enter an email address, like name@example.com.',
    ]);
  });

  it('explains a failure without details by its message', () => {
    const conflict = new ApiFailure(409, 'Only a draft campaign can be changed or deleted.');
    expect(conflict.explain({ except: ['name'] })).toEqual([conflict.message]);
    expect(conflict.fieldMessage('name')).toBeUndefined();
  });

  it('counts what it does not show at one field', () => {
    const many = new ApiFailure(
      422,
      'x',
      [0, 1, 2, 3, 4].map((index) =>
        detail(`tags[${index}]`, 'too_long', 'at most 100 characters'),
      ),
    );
    expect(many.fieldMessage('tags')).toMatch(/^Tag 1: .* Tag 3: .*\(2 more like this\.\)$/);
  });
});

describe('offsetOf: a line and column in a control’s text', () => {
  const text = 'one\ntwo {{#if x}}\nthree';
  it.each([
    [1, 1, 0],
    [2, 5, 8],
    [3, 6, text.length],
    [2, 99, 17], // past the end of its line: the line's end
    [9, 1, text.length], // past the last line: the end
  ])('line %i, column %i → %i', (line, column, offset) => {
    expect(offsetOf(text, line, column)).toBe(offset);
  });
});
