import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { RESOURCE_NAME_MAX, ResourceName, ResourceRename } from './resource-name.decorator';

class Create {
  @ResourceName('Welcome')
  name!: string;
}

class Update {
  @ResourceRename()
  name?: string;
}

const failures = (type: new () => object, body: object) =>
  validateSync(plainToInstance(type, body)).flatMap((error) =>
    Object.keys(error.constraints ?? {}),
  );

describe('ResourceName', () => {
  it('takes a name of 1 to the most characters', () => {
    expect(failures(Create, { name: 'a' })).toEqual([]);
    expect(failures(Create, { name: 'a'.repeat(RESOURCE_NAME_MAX) })).toEqual([]);
  });

  it.each([
    ['left out', {}, 'isDefined'],
    ['null', { name: null }, 'isDefined'],
    ['empty', { name: '' }, 'isNotEmpty'],
    ['not text', { name: 7 }, 'isString'],
    ['too long', { name: 'a'.repeat(RESOURCE_NAME_MAX + 1) }, 'maxLength'],
  ])('refuses a name %s', (_, body, constraint) => {
    expect(failures(Create, body)).toContain(constraint);
  });
});

describe('ResourceRename', () => {
  it('may be left out, or given under the same rule', () => {
    expect(failures(Update, {})).toEqual([]);
    expect(failures(Update, { name: 'Renamed' })).toEqual([]);
  });

  it.each([
    ['null', { name: null }, 'isString'],
    ['empty', { name: '' }, 'isNotEmpty'],
    ['too long', { name: 'a'.repeat(RESOURCE_NAME_MAX + 1) }, 'maxLength'],
  ])('refuses a new name given %s', (_, body, constraint) => {
    expect(failures(Update, body)).toContain(constraint);
  });
});
