import type { Logger } from '@nestjs/common';
import type { SMTPServer } from 'smtp-server';

/**
 * Starts `server` listening, unless another process on this host already holds the port: then
 * that process takes the connections and this one does without (every API or worker process
 * of an installation may be started with the same port). Answers whether it listens.
 */
export async function listenUnlessTaken(
  server: SMTPServer,
  { port, host }: { port: number; host: string },
  logger: Logger,
  what: string,
): Promise<boolean> {
  server.on('error', (error) => logger.warn(`${what}: ${error.message}`));
  try {
    await new Promise<void>((resolve, reject) => {
      server.server.once('error', reject);
      server.listen(port, host, () => {
        server.server.off('error', reject);
        resolve();
      });
    });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    logger.warn(`${what} port ${port} is taken; not listening here`);
    return false;
  }
}
