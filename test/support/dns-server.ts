import dns2 from 'dns2';
import { Resolver } from 'node:dns/promises';

const { Packet } = dns2;

type RecordType = 'TXT' | 'MX';
type Answer = { type: 'TXT'; text: string } | { type: 'MX'; exchange: string; priority: number };

/**
 * An authoritative DNS server on loopback (UDP) for tests, serving whatever zone the test
 * sets: TXT and MX records, NXDOMAIN for names it has nothing for (NODATA for other types of
 * a known name), and SERVFAIL for names marked failing. Point Herald at it with
 * DNS_SERVERS=`address`, and mailauth with `resolver`.
 */
export class TestDnsServer {
  private readonly records = new Map<string, Answer[]>();
  private readonly failing = new Set<string>();
  private port = 0;
  private readonly server = dns2.createServer({
    udp: true,
    handle: (request, send) => {
      void send(this.answer(request));
    },
  });

  private constructor() {}

  static async start(): Promise<TestDnsServer> {
    const self = new TestDnsServer();
    const addresses = await self.server.listen({ udp: { port: 0, address: '127.0.0.1' } });
    self.port = addresses.udp!.port;
    return self;
  }

  /** For DNS_SERVERS. */
  get address(): string {
    return `127.0.0.1:${this.port}`;
  }

  /** Replaces the TXT records at `name`; each string is one record (split as DNS requires). */
  setTxt(name: string, ...texts: string[]): void {
    this.set(
      name,
      'TXT',
      texts.map((text) => ({ type: 'TXT', text })),
    );
  }

  setMx(name: string, exchange: string, priority = 10): void {
    this.set(name, 'MX', [{ type: 'MX', exchange, priority }]);
  }

  remove(name: string, type: RecordType): void {
    this.set(name, type, []);
  }

  /** SERVFAIL for every question about `name` until `failing` is false again. */
  setFailing(name: string, failing: boolean): void {
    if (failing) this.failing.add(name.toLowerCase());
    else this.failing.delete(name.toLowerCase());
  }

  /** A resolver for mailauth: dns.resolve's contract, answered by this server. */
  resolver(): (name: string, rrtype: string) => Promise<never> {
    const resolver = new Resolver({ timeout: 1000, tries: 1 });
    resolver.setServers([this.address]);
    return (name, rrtype) => resolver.resolve(name, rrtype) as Promise<never>;
  }

  async close(): Promise<void> {
    await this.server.close();
  }

  private set(name: string, type: RecordType, answers: Answer[]): void {
    const key = name.toLowerCase();
    const others = (this.records.get(key) ?? []).filter((answer) => answer.type !== type);
    const all = [...others, ...answers];
    if (all.length === 0) this.records.delete(key);
    else this.records.set(key, all);
  }

  private answer(request: InstanceType<typeof Packet>) {
    const response = Packet.createResponseFromRequest(request);
    response.header.aa = 1;
    const [question] = request.questions;
    const name = question.name.toLowerCase();
    if (this.failing.has(name)) {
      response.header.rcode = 2; // SERVFAIL
      return response;
    }
    const known = this.records.get(name);
    if (!known) {
      response.header.rcode = 3; // NXDOMAIN
      return response;
    }
    for (const answer of known) {
      if (answer.type === 'TXT' && question.type === Packet.TYPE.TXT) {
        response.answers.push(
          Packet.createResourceFromQuestion(question, { ttl: 60, data: chunks(answer.text) }),
        );
      }
      if (answer.type === 'MX' && question.type === Packet.TYPE.MX) {
        response.answers.push(
          Packet.createResourceFromQuestion(question, {
            ttl: 60,
            exchange: answer.exchange,
            priority: answer.priority,
          }),
        );
      }
    }
    return response;
  }
}

/** A TXT record's character-strings hold at most 255 octets each. */
function chunks(text: string): string[] {
  const parts: string[] = [];
  for (let start = 0; start < text.length; start += 255) parts.push(text.slice(start, start + 255));
  return parts.length > 0 ? parts : [''];
}
