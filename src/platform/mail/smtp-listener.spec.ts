import { Logger } from '@nestjs/common';
import { SMTPServer } from 'smtp-server';
import { SmtpListener } from './smtp-listener';

describe('SmtpListener', () => {
  const quiet = new Logger('smtp-listener.spec');
  beforeAll(() => jest.spyOn(quiet, 'warn').mockImplementation(() => undefined));

  const server = () => new SMTPServer({ logger: false, authOptional: true });

  it('listens, does without a port another process holds, and closes', async () => {
    const first = new SmtpListener('first', quiet);
    const second = new SmtpListener('second', quiet);
    expect(first.port).toBeUndefined();

    expect(await first.listen(server(), { port: 0, host: '127.0.0.1' })).toBe(true);
    const port = first.port!;
    expect(port).toBeGreaterThan(0);

    expect(await second.listen(server(), { port, host: '127.0.0.1' })).toBe(false);
    expect(second.port).toBeUndefined();
    expect(quiet.warn).toHaveBeenCalledWith(`second port ${port} is taken; not listening here`);

    await first.close();
    expect(first.port).toBeUndefined();
    await second.close();
    expect(await second.listen(server(), { port, host: '127.0.0.1' })).toBe(true);
    expect(second.port).toBe(port);
    await second.close();
  });
});
