/**
 * A DATA stream read into memory up to `maxBytes`. Past that, what was kept is let go and
 * the rest is read and dropped as it arrives, so the reply (552) can follow the end of the
 * data as SMTP requires, while memory holds no more than the limit, however much is sent.
 * Undefined means the message was over the limit.
 */
export async function readBounded(
  stream: AsyncIterable<Buffer>,
  maxBytes: number,
): Promise<Buffer | undefined> {
  let chunks: Buffer[] | undefined = [];
  let size = 0;
  for await (const chunk of stream) {
    size += chunk.length;
    if (chunks && size > maxBytes) chunks = undefined;
    chunks?.push(chunk);
  }
  return chunks && Buffer.concat(chunks, size);
}
