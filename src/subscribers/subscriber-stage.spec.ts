import { StagedBatch, StageShape } from './subscriber-stage';

describe('StagedBatch', () => {
  const shape = new StageShape(['first_name']);

  it('holds no bytes and no lines when nothing was added', () => {
    const batch = new StagedBatch(shape);
    expect(batch.size).toBe(0);
    expect(batch.data().length).toBe(0);
  });

  it("is every line's UTF-8, each ended, across growth and characters of every width", () => {
    const batch = new StagedBatch(shape);
    const lines: string[] = [];
    // Past the first 64 KiB several times over, with one-, two-, three- and four-byte
    // characters (a surrogate pair is two UTF-16 units and four bytes).
    for (let index = 0; index < 3_000; index++) {
      const line = `${index}\tid-${index}\th\tanne${index}@example.com\tJosé Ünal 北京 🔑 ${'x'.repeat(index % 50)}`;
      lines.push(line);
      batch.add(line);
    }
    expect(batch.size).toBe(3_000);
    expect(batch.data().toString('utf8')).toBe(`${lines.join('\n')}\n`);
    expect(batch.data().length).toBe(Buffer.byteLength(`${lines.join('\n')}\n`));
  });

  it('grows at once to fit a line longer than twice what it holds', () => {
    const batch = new StagedBatch(shape);
    const long = '€'.repeat(100_000);
    batch.add('1');
    batch.add(long);
    expect(batch.data().toString('utf8')).toBe(`1\n${long}\n`);
  });
});
