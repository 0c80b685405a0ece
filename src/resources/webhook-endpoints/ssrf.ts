import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * The SSRF guard: where a webhook may be delivered. Only globally reachable unicast addresses
 * are; everything in the IANA IPv4 and IPv6 special-purpose registries is not (loopback, private,
 * link-local with the cloud metadata address, CGNAT, documentation, benchmarking, multicast,
 * reserved, unspecified, 6to4, Teredo, …), as classified by ipaddr.js's `range()`, plus the
 * IPv4-compatible `::/96` block it calls unicast. An IPv4 address inside an IPv4-mapped address
 * or the NAT64 well-known prefix `64:ff9b::/96` is judged as the IPv4 address it carries.
 *
 * It runs twice: at registration (`webhookUrlProblem`, `checkWebhookUrl`: the literal address, or
 * every address the name resolves to now), and on the resolved address at every connection
 * (`isForbiddenAddress`, in the sender), so a DNS answer that changes later does not pass either.
 */

/** The IPv6 prefixes whose last 32 bits are an IPv4 address to judge instead. */
function embeddedIpv4(address: ipaddr.IPv6): ipaddr.IPv4 | undefined {
  const [a, b, c, d, e, f] = address.parts;
  const mapped = a === 0 && b === 0 && c === 0 && d === 0 && e === 0 && f === 0xffff;
  const nat64 = a === 0x64 && b === 0xff9b && c === 0 && d === 0 && e === 0 && f === 0;
  if (!mapped && !nat64) return undefined;
  const [, , , , , , high, low] = address.parts;
  return new ipaddr.IPv4([high >> 8, high & 255, low >> 8, low & 255]);
}

function ipv6Range(text: string): string {
  // Node's URL parser canonicalises IPv6 correctly (ipaddr.js reads `::1.2.3.4` as IPv4-mapped).
  const canonical = new URL(`http://[${text.replace(/%.*$/, '')}]/`).hostname.slice(1, -1);
  const address = ipaddr.IPv6.parse(canonical);
  const ipv4 = embeddedIpv4(address);
  if (ipv4) return ipv4.range();
  const range = address.range();
  // ::/96 (IPv4-compatible, deprecated by RFC 4291) is "unicast" to ipaddr.js; :: and ::1 are named.
  if (range === 'unicast' && address.parts.slice(0, 6).every((part) => part === 0)) return 'ipv4Compatible';
  return range;
}

/**
 * The special-purpose range an IP address falls in (ipaddr.js's names: `loopback`, `private`,
 * `linkLocal`, `uniqueLocal`, `reserved`, `teredo`, …, plus `ipv4Compatible`), `unicast` for an
 * ordinary public address, or `invalid` for something that is not an IP address.
 */
export function addressRange(address: string): string {
  try {
    const family = isIP(address.replace(/%.*$/, ''));
    if (family === 4) return ipaddr.IPv4.parse(address).range();
    if (family === 6) return ipv6Range(address);
  } catch {
    // fall through: not an address we can classify
  }
  return 'invalid';
}

/** Whether deliveries to this IP address are refused (unless private networks are allowed). */
export function isForbiddenAddress(address: string): boolean {
  return addressRange(address) !== 'unicast';
}

/** Names for this machine that a resolver may not know (`ip6-localhost` is only in some /etc/hosts). */
const LOOPBACK_NAMES = new Set(['localhost', 'ip6-localhost', 'ip6-loopback', 'localhost.localdomain', 'localhost6', 'localhost6.localdomain6']);
/** Special-use suffixes only a local network resolves (RFC 6761, 6762, 8375; ICANN's `.internal`). */
const LOCAL_SUFFIXES = ['.localhost', '.local', '.internal', '.home.arpa', '.localdomain'];

/** Why a host name (not an address) cannot be a public webhook receiver, or undefined. */
function localNameProblem(name: string): string | undefined {
  if (LOOPBACK_NAMES.has(name) || name.endsWith('.localhost')) return `points to this machine (${name})`;
  const suffix = LOCAL_SUFFIXES.find((end) => name.endsWith(end));
  if (suffix) return `uses a name only a local network resolves (${suffix})`;
  // A single label is resolved by /etc/hosts or the local search domains, never by public DNS.
  if (!name.includes('.')) return `uses a single-label host name only a local network resolves (${name})`;
  return undefined;
}

interface ParsedWebhookUrl {
  problem?: string;
  /** The host to resolve: a name, when the URL is acceptable so far and names a host rather than an address. */
  name?: string;
}

function inspect(url: string, allowPrivateNetworks: boolean): ParsedWebhookUrl {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { problem: 'is not a valid URL' };
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return { problem: 'must be an http or https URL' };
  if (parsed.username || parsed.password) return { problem: 'must not contain credentials' };
  if (allowPrivateNetworks) return {};
  // The URL parser already turned 2130706433, 0x7f.1 and 0177.0.0.1 into 127.0.0.1, and lower-cased names.
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host)) {
    const range = addressRange(host);
    return range === 'unicast' ? {} : { problem: `points to a private or reserved address (${host}: ${range})` };
  }
  const name = host.replace(/\.+$/, ''); // `localhost.` is `localhost`
  const problem = localNameProblem(name);
  return problem ? { problem } : { name };
}

/**
 * Why a webhook URL is refused, judged on the URL alone, or undefined if it is acceptable so far:
 * not http(s), credentials, a special-purpose IP literal in any notation the URL parser accepts,
 * or a name that only this machine or a local network resolves. `checkWebhookUrl` adds DNS.
 */
export function webhookUrlProblem(url: string, allowPrivateNetworks: boolean): string | undefined {
  return inspect(url, allowPrivateNetworks).problem;
}

/** A resolver in the shape of `dns.lookup(name, {all: true})`. */
export type LookupAll = (hostname: string) => Promise<{ address: string; family: number }[]>;

/** How long registration waits for DNS before it accepts the name and leaves it to the connect-time check. */
const LOOKUP_TIMEOUT_MS = 2000;

/**
 * Why a host name is refused after resolving it: any one of its addresses being special-purpose
 * is enough (a client would pick any of them). A name that does not resolve (yet), or whose
 * lookup fails or takes too long, is not refused: it may be created later, and the connect-time
 * check judges whatever it resolves to then.
 */
export async function resolvedAddressProblem(
  name: string,
  lookup: LookupAll,
  timeoutMs = LOOKUP_TIMEOUT_MS,
): Promise<string | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), timeoutMs);
  });
  try {
    const addresses = await Promise.race([lookup(name).catch(() => undefined), timeout]);
    const refused = addresses?.find((entry) => isForbiddenAddress(entry.address));
    if (!refused) return undefined;
    return `resolves to a private or reserved address (${name}: ${refused.address}, ${addressRange(refused.address)})`;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Why a webhook URL is refused at registration, or undefined: `webhookUrlProblem`, then, for a
 * host name, every address `lookup` resolves it to now. With `allowPrivateNetworks` only the
 * URL's form is checked.
 */
export async function checkWebhookUrl(
  url: string,
  allowPrivateNetworks: boolean,
  lookup: LookupAll,
): Promise<string | undefined> {
  const { problem, name } = inspect(url, allowPrivateNetworks);
  if (problem || name === undefined) return problem;
  return resolvedAddressProblem(name, lookup);
}
