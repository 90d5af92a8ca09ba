import { filterLabel } from './segment-rules';

describe('filterLabel: where a segment filter goes wrong, in the editor’s words', () => {
  it.each([
    // [path, in the rule builder?, label]
    ['filter.and[1].value', true, 'Rule 2, value'],
    ['filter.or[0].op', true, 'Rule 1, condition'],
    ['filter.value', true, 'Rule 1, value'],
    ['filter.in[2]', true, 'Filter, at in[2]'],
    ['filter.and[1].value', false, 'Filter, at and[1].value'],
    ['filter', true, 'Filter'],
    ['name', true, 'Name'],
  ])('%s (builder: %s) → %s', (path, builder, label) => {
    expect(filterLabel(path, builder)).toBe(label);
  });
});
