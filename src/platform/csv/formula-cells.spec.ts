import { neutralizeCell, restoreCell } from './formula-cells';

describe('formula cells', () => {
  it.each(['=1+1', '+1', '-5', '@A1', '\tx', '\rx', "'=x", "''-x"])(
    'prefixes %j with a quote, and restores it',
    (cell) => {
      expect(neutralizeCell(cell)).toBe(`'${cell}`);
      expect(restoreCell(neutralizeCell(cell))).toBe(cell);
    },
  );

  it.each(['', 'plain', "'quoted", "'", 'a=b', ' =x'])('leaves %j alone both ways', (cell) => {
    expect(neutralizeCell(cell)).toBe(cell);
    expect(restoreCell(cell)).toBe(cell);
  });
});
