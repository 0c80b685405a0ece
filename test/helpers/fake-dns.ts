import dgram from 'node:dgram';
import type { AddressInfo } from 'node:net';
import ipaddr from 'ipaddr.js';

/** How the fake server answers a name: its addresses (A and AAAA), `nxdomain`, or `silent` (no answer at all). */
export type DnsAnswer = string[] | 'nxdomain' | 'silent';

/** A query the fake server received. */
export interface DnsQuery {
  name: string;
  type: 'A' | 'AAAA' | number;
}

export interface FakeDns {
  /** `127.0.0.1:<port>`, for `Resolver.setServers`. */
  server: string;
  /** Every query received, in order. */
  queries: DnsQuery[];
  /** The names queried at least once. */
  queried(name: string): boolean;
  close(): Promise<void>;
}

const TYPES: Record<number, 'A' | 'AAAA'> = { 1: 'A', 28: 'AAAA' };

/**
 * A DNS server on 127.0.0.1 (UDP), a remote peer faked in-process: `answer(name)` decides each
 * reply. Names it does not know are NXDOMAIN. It answers only the question (no EDNS, no authority).
 */
export async function startFakeDns(answer: (name: string) => DnsAnswer): Promise<FakeDns> {
  const socket = dgram.createSocket('udp4');
  const queries: DnsQuery[] = [];
  socket.on('message', (message, peer) => {
    const question = readQuestion(message);
    if (!question) return;
    queries.push({ name: question.name, type: TYPES[question.type] ?? question.type });
    const reply = answer(question.name);
    if (reply === 'silent') return;
    socket.send(response(message, question, reply), peer.port, peer.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const { port } = socket.address() as AddressInfo;
  return {
    server: `127.0.0.1:${port}`,
    queries,
    queried: (name) => queries.some((query) => query.name === name),
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}

interface Question {
  name: string;
  type: number;
  /** Where the question ends in the message (after QTYPE and QCLASS). */
  end: number;
}

/** The first question of a query (RFC 1035 §4.1.2), names without compression as resolvers send them. */
function readQuestion(message: Buffer): Question | undefined {
  if (message.length < 12 || message.readUInt16BE(4) < 1) return undefined;
  const labels: string[] = [];
  let at = 12;
  while (at < message.length && message[at] !== 0) {
    const length = message[at];
    labels.push(message.subarray(at + 1, at + 1 + length).toString('ascii'));
    at += 1 + length;
  }
  if (at + 5 > message.length) return undefined;
  return { name: labels.join('.').toLowerCase(), type: message.readUInt16BE(at + 1), end: at + 5 };
}

/** The reply to `query`: its id and question, and the addresses of the asked type (none: NODATA), or NXDOMAIN. */
function response(query: Buffer, question: Question, reply: string[] | 'nxdomain'): Buffer {
  const records =
    reply === 'nxdomain'
      ? []
      : reply
          .map((address) => ipaddr.parse(address))
          .filter((address) => (question.type === 1 ? address.kind() === 'ipv4' : question.type === 28 && address.kind() === 'ipv6'))
          .map((address) => Buffer.from(address.toByteArray()));
  const header = Buffer.alloc(12);
  query.copy(header, 0, 0, 2); // the id
  header.writeUInt16BE(0x8180 | (reply === 'nxdomain' ? 3 : 0), 2); // response, recursion desired and available, rcode
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(records.length, 6);
  const answers = records.map((data) => {
    const record = Buffer.alloc(12);
    record.writeUInt16BE(0xc00c, 0); // the name: a pointer to the question's
    record.writeUInt16BE(question.type, 2);
    record.writeUInt16BE(1, 4); // IN
    record.writeUInt32BE(60, 6);
    record.writeUInt16BE(data.length, 10);
    return Buffer.concat([record, data]);
  });
  return Buffer.concat([header, query.subarray(12, question.end), ...answers]);
}
