import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { McpError } from '../../../protocol/mcp-error.js';

/** Longest callback URL kept for a subscription. */
export const MAX_CALLBACK_URL_LENGTH = 2_048;

/** Where a POST goes: the URL the client gave, and the one address it was checked against and will connect to. */
export interface CallbackTarget {
  readonly url: URL;
  readonly address: string;
  readonly family: 4 | 6;
}

/** Why a callback cannot be reached at an address that passes the rules. */
export class CallbackRefused extends Error {
  constructor(
    message: string,
    /** The host resolved to an address the rules refuse (else: it did not resolve). */
    readonly forbidden: boolean,
  ) {
    super(message);
  }
}

// The IANA special-purpose registries' ranges that are not globally reachable (IPv4 and IPv6), and the IPv6
// forms that embed an IPv4 address (checked through the address they embed).
const NOT_GLOBAL = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  NOT_GLOBAL.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 127],
  ['100::', 64],
  ['2001::', 23],
  ['2001:db8::', 32],
  ['2002::', 16],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  NOT_GLOBAL.addSubnet(net, prefix, 'ipv6');

/** True for an address that is not globally routable (loopback, private, link-local, documentation, ...). */
export function isNotGlobal(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return NOT_GLOBAL.check(address, 'ipv4');
  if (family !== 6) return true;
  const embedded = /^(?:::ffff:|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (embedded) return NOT_GLOBAL.check(embedded[1], 'ipv4');
  // The same two forms as the URL parser writes them, in hex (`::ffff:7f00:1`).
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (hex) {
    const [high, low] = [parseInt(hex[1], 16), parseInt(hex[2], 16)];
    return NOT_GLOBAL.check(`${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`, 'ipv4');
  }
  return NOT_GLOBAL.check(address, 'ipv6');
}

/** The callback URL as given, checked for what no resolution changes: a string, an `https` URL, no credentials. */
export function callbackUrl(value: unknown): URL {
  const invalid = (why: string) => McpError.invalidParams(`Invalid params: "delivery.url" ${why}`);
  if (typeof value !== 'string') throw invalid('must be a string');
  if (value.length > MAX_CALLBACK_URL_LENGTH) throw invalid(`must be at most ${MAX_CALLBACK_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalid('is not a URL');
  }
  if (url.protocol !== 'https:') throw invalid('must use https');
  if (url.username !== '' || url.password !== '') throw invalid('must not carry credentials');
  return url;
}

/**
 * Resolves the callback's host and checks every address it resolves to, at each delivery, not only at subscribe
 * time (a name can be pointed elsewhere between the two: DNS rebinding). The POST then connects to the address
 * checked here. `allowHosts` (hostnames or addresses) lifts the rule for the hosts an app names.
 */
export async function resolveCallback(url: URL, allowHosts: ReadonlySet<string>): Promise<CallbackTarget> {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  let addresses: Array<{ address: string; family: number }>;
  if (isIP(host) !== 0) addresses = [{ address: host, family: isIP(host) }];
  else {
    try {
      addresses = await lookup(host, { all: true, verbatim: true });
    } catch {
      throw new CallbackRefused(`the callback host ${host} does not resolve`, false);
    }
  }
  if (addresses.length === 0) throw new CallbackRefused(`the callback host ${host} does not resolve`, false);
  const named = allowHosts.has(host);
  for (const { address } of addresses)
    if (isNotGlobal(address) && !named && !allowHosts.has(address.toLowerCase()))
      throw new CallbackRefused(
        `the callback host ${host} resolves to an address that is not publicly routable ` +
          '(the server can list it in events.webhooks.allowHosts)',
        true,
      );
  const [first] = addresses;
  return { url, address: first.address, family: first.family === 6 ? 6 : 4 };
}
