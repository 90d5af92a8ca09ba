import { Readable } from 'node:stream';
import { readBounded } from './bounded-message';

describe('readBounded', () => {
  const stream = (sizes: number[]) => Readable.from(sizes.map((size) => Buffer.alloc(size, 'x')));

  it('answers the message when it fits, exactly at the limit included', async () => {
    expect((await readBounded(stream([400, 600]), 1000))?.length).toBe(1000);
  });

  it('answers undefined past the limit, after reading the stream to its end', async () => {
    const source = stream([600, 600, 600]);
    expect(await readBounded(source, 1000)).toBeUndefined();
    expect(source.readableEnded).toBe(true);
  });
});
