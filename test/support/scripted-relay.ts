import { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

/** A hand-scripted SMTP relay listening on loopback, and what a test needs of it. */
export interface ScriptedRelay {
  /** What the script recorded as accepted (its own choice of key: a Message-ID, an address). */
  accepted: string[];
  /** `smtp://127.0.0.1:<port>`, ready for SMTP_URL. */
  url: string;
  close(): Promise<void>;
}

/**
 * Starts `server` (an SMTPServer whose handlers script some misbehaviour the SmtpSink does not
 * play) on a free loopback port. Its errors (a socket the script destroyed, say) are the point
 * of the test, so they are swallowed rather than crashing Jest.
 */
export async function listenOnLoopback(
  server: SMTPServer,
  accepted: string[],
): Promise<ScriptedRelay> {
  server.on('error', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    accepted,
    url: `smtp://127.0.0.1:${port}`,
    close: () => new Promise<void>((closed) => server.close(() => closed())),
  };
}
