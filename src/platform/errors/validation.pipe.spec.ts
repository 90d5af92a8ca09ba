import 'reflect-metadata';
import { ArgumentMetadata } from '@nestjs/common';
import { TestSendDto } from '../../campaigns/operations/campaign-operations.dto';
import { CreateSubscriberDto } from '../../subscribers/subscriber.dto';
import { cpuMsOf } from '../../../test/support/cpu-time';
import { ApiError, ErrorDetail } from './api-errors';
import { RequestValidationPipe } from './validation.pipe';

const pipe = new RequestValidationPipe();
const asBody = (metatype: ArgumentMetadata['metatype']): ArgumentMetadata => ({
  type: 'body',
  metatype,
});

async function rejection(
  body: unknown,
  metatype: ArgumentMetadata['metatype'] = CreateSubscriberDto,
): Promise<ApiError> {
  try {
    await pipe.transform(body, asBody(metatype));
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    return error as ApiError;
  }
  throw new Error('expected the body to be refused');
}

async function details(body: unknown): Promise<Record<string, string>> {
  const error = await rejection(body);
  expect(error.status).toBe(422);
  return Object.fromEntries(
    error.details.map((detail: ErrorDetail) => [detail.field, detail.code]),
  );
}

const email = 'ada@example.com';

describe('RequestValidationPipe', () => {
  it('returns a DTO instance for a valid body', async () => {
    const value = await pipe.transform(
      { email, tags: ['vip'], custom_fields: { plan: 'pro' } },
      asBody(CreateSubscriberDto),
    );
    expect(value).toBeInstanceOf(CreateSubscriberDto);
    expect(value).toMatchObject({ email, tags: ['vip'], custom_fields: { plan: 'pro' } });
  });

  it('answers 400 for a missing top-level field, whatever else is wrong', async () => {
    const error = await rejection({ first_name: 42 });
    expect(error.status).toBe(400);
    expect(error.message).toContain('email');
  });

  it('answers 422 too_long, not 400, for a required list with too many items', async () => {
    const error = await rejection({ emails: Array.from({ length: 6 }, () => email) }, TestSendDto);
    expect(error.status).toBe(422);
    expect(error.details).toEqual([expect.objectContaining({ field: 'emails', code: 'too_long' })]);
  });

  it('answers 422 at the item path for a key missing inside a list item', async () => {
    expect(await details({ email, social_media: [{ profile_id: 'ada' }] })).toEqual({
      'social_media[0].platform': 'missing',
    });
    expect(await details({ email, social_media: [{ platform: 'x' }] })).toEqual({
      'social_media[0].profile_id': 'missing',
    });
  });

  it('names unknown fields, top-level and nested', async () => {
    expect(
      await details({
        email,
        colour: 'blue',
        social_media: [{ platform: 'x', profile_id: 'y', z: 1 }],
      }),
    ).toEqual({ colour: 'unknown_field', 'social_media[0].z': 'unknown_field' });
  });

  it('refuses NUL and lone surrogates in any string, keys and nested values included', async () => {
    expect(
      await details({
        email,
        first_name: 'A\u0000da',
        tags: ['ok', '\ud800'],
        custom_fields: { note: 'x\udc00', ['k\u0000']: 1, deep: [{ v: '\u0000' }] },
        statistics: { opens: '\udbff' },
      }),
    ).toEqual({
      first_name: 'invalid_characters',
      'tags[1]': 'invalid_characters',
      'custom_fields.note': 'invalid_characters',
      'custom_fields["k\ufffd"]': 'invalid_characters',
      'custom_fields.deep[0].v': 'invalid_characters',
      'statistics.opens': 'invalid_characters',
    });
  });

  it('answers 422 invalid_characters, not a crash or a 400, for a required field with them', async () => {
    expect(await details({ email: '\ud800@example.com' })).toEqual({ email: 'invalid_characters' });
  });

  it('accepts well-formed surrogate pairs', async () => {
    await expect(
      pipe.transform({ email, first_name: 'Ada 😀' }, asBody(CreateSubscriberDto)),
    ).resolves.toMatchObject({ first_name: 'Ada 😀' });
  });

  it.each([
    [{ tags: Array.from({ length: 101 }, (_, i) => `t${i}`) }, 'tags', 'too_long'],
    [{ tags: ['x'.repeat(101)] }, 'tags', 'too_long'],
    [{ interests: Array.from({ length: 101 }, () => 'x') }, 'interests', 'too_long'],
    [{ custom_fields: keys(101) }, 'custom_fields', 'too_many_keys'],
    [{ custom_fields: { big: 'x'.repeat(16 * 1024) } }, 'custom_fields', 'too_large'],
    [{ custom_fields: [1] }, 'custom_fields', 'invalid_type'],
    [{ statistics: keys(101) }, 'statistics', 'too_many_keys'],
    [{ social_media: Array.from({ length: 51 }, () => ({})) }, 'social_media', 'too_long'],
    [{ first_name: 'x'.repeat(256) }, 'first_name', 'too_long'],
    [{ id: 'x'.repeat(256) }, 'id', 'too_long'],
    // Over 254 characters an address is not valid at all.
    [{ email: `${'a'.repeat(250)}@example.com` }, 'email', 'invalid_format'],
    [{ birthdate: '19900101' }, 'birthdate', 'invalid_format'],
    [{ birthdate: '1990-02-30' }, 'birthdate', 'invalid_format'],
    [{ birthdate: '0000-01-01' }, 'birthdate', 'out_of_range'],
    [{ birthdate: '1899-12-31' }, 'birthdate', 'out_of_range'],
    [{ birthdate: '2999-01-01' }, 'birthdate', 'out_of_range'],
  ] as const)('refuses bad value #%# with a detail', async (fields, field, code) => {
    expect(await details({ email, ...fields })).toEqual({ [field]: code });
  });

  it.each(['1990-05-01', '1900-01-01', '1990-05-01T10:00:00Z', '2000-02-29T23:59:59.123+14:00'])(
    'accepts the birthdate %s',
    async (birthdate) => {
      await expect(
        pipe.transform({ email, birthdate }, asBody(CreateSubscriberDto)),
      ).resolves.toMatchObject({ birthdate });
    },
  );

  it('hands free-form values to the DTO as parsed, without copying them key by key', async () => {
    const custom = keys(100);
    const value = (await pipe.transform(
      { email, custom_fields: custom },
      asBody(CreateSubscriberDto),
    )) as CreateSubscriberDto;
    expect(value.custom_fields).toBe(custom);
  });

  it('answers 422, not a crash, for objects with a `constructor` key where a string belongs', async () => {
    expect(
      await details({
        email,
        first_name: { constructor: {} },
        social_media: [{ platform: { constructor: { prototype: {} } }, profile_id: 'ada' }],
      }),
    ).toEqual({ first_name: 'invalid_type', 'social_media[0].platform': 'invalid_type' });
  });

  it('stays fast on a body of a thousand unknown keys and long lists', async () => {
    const body = { email, ...keys(1000), tags: Array.from({ length: 50_000 }, () => 'x') };
    let error: ApiError | undefined;
    // CPU time, so a loaded machine's other work does not count.
    expect(await cpuMsOf(async () => (error = await rejection(body)))).toBeLessThan(500);
    expect(error?.details).toHaveLength(100);
  });
});

function keys(count: number): Record<string, number> {
  return Object.fromEntries(Array.from({ length: count }, (_, i) => [`k${i}`, i]));
}
