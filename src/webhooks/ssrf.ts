import { BlockList, isIP } from 'node:net';

/**
 * Addresses a webhook must never be delivered to (server-side request forgery): private,
 * loopback, link-local (cloud metadata at 169.254.169.254 included), CGNAT, multicast, reserved
 * and unspecified ranges, in IPv4 and IPv6. An IPv4 address embedded in IPv6 (mapped, NAT64) is
 * judged as the IPv4 address it carries.
 */
const FORBIDDEN = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  FORBIDDEN.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
  ['2001:db8::', 32],
] as const) {
  FORBIDDEN.addSubnet(network, prefix, 'ipv6');
}

/** The IPv4 address inside an IPv4-mapped (`::ffff:a.b.c.d`) or NAT64 (`64:ff9b::/96`) address. */
function embeddedIpv4(address: string): string | undefined {
  const match = /^(?:::ffff:|64:ff9b::)(?:(\d+\.\d+\.\d+\.\d+)|([0-9a-f]{1,4}):([0-9a-f]{1,4}))$/i.exec(address);
  if (!match) return undefined;
  if (match[1]) return match[1];
  const high = Number.parseInt(match[2], 16);
  const low = Number.parseInt(match[3], 16);
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}

/** Whether deliveries to this IP address are refused (unless private networks are allowed). */
export function isForbiddenAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return FORBIDDEN.check(address, 'ipv4');
  if (family !== 6) return true; // not an address at all: refuse rather than guess
  const ipv4 = embeddedIpv4(address);
  if (ipv4) return FORBIDDEN.check(ipv4, 'ipv4');
  return FORBIDDEN.check(address, 'ipv6');
}

/**
 * Why a webhook URL is refused at registration, or undefined if it is acceptable. Only literal
 * addresses and `localhost` can be judged here; names are checked again on the resolved address
 * at every connection, so DNS tricks do not pass either.
 */
export function webhookUrlProblem(url: string, allowPrivateNetworks: boolean): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'is not a valid URL';
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return 'must be an http or https URL';
  if (parsed.username || parsed.password) return 'must not contain credentials';
  if (allowPrivateNetworks) return undefined;
  const host = parsed.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return 'points to this machine (localhost)';
  if (isIP(host) && isForbiddenAddress(host)) return `points to a private or reserved address (${host})`;
  return undefined;
}
