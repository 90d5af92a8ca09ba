import type { Logger } from '@nestjs/common';
import type { AddressInfo } from 'node:net';
import type { SMTPServer } from 'smtp-server';

/**
 * One of Herald's SMTP ports (inbound feedback, submission): starts its server listening unless
 * another process on this host already holds the port, answers the port it listens on, and
 * closes the server at shutdown.
 */
export class SmtpListener {
  private server: SMTPServer | undefined;

  constructor(
    private readonly what: string,
    private readonly logger: Logger,
  ) {}

  /** The port it listens on (useful with port 0); undefined when it does not listen. */
  get port(): number | undefined {
    const address = this.server?.server.address() as AddressInfo | null | undefined;
    return address?.port;
  }

  /**
   * Starts `server` listening, unless another process on this host already holds the port:
   * then that process takes the connections and this one does without (every API or worker
   * process of an installation may be started with the same port). Answers whether it listens.
   */
  async listen(
    server: SMTPServer,
    { port, host }: { port: number; host: string },
  ): Promise<boolean> {
    server.on('error', (error) => this.logger.warn(`${this.what}: ${error.message}`));
    try {
      await new Promise<void>((resolve, reject) => {
        server.server.once('error', reject);
        server.listen(port, host, () => {
          server.server.off('error', reject);
          resolve();
        });
      });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
      this.logger.warn(`${this.what} port ${port} is taken; not listening here`);
      return false;
    }
    this.server = server;
    return true;
  }

  async close(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
