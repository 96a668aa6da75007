// Where webhooks may be sent (docs/security.md#webhook-destinations). A webhook URL is chosen by an
// API caller and fetched by the control plane, from inside the operator's network: without a check
// it reaches loopback services, the private network and the cloud metadata service (169.254.169.254)
// with the control plane's standing (server-side request forgery). So, unless WEBHOOK_ALLOW_PRIVATE
// is set (the dev stack, whose test receivers listen on loopback), every address a webhook host
// resolves to must be a public unicast address:
//  - at registration, the URL's host is resolved and every address checked (400 webhook_url_not_public);
//  - at delivery, the host is resolved and checked again, and the connection is made through a lookup
//    that hands the socket the very addresses checked, so a DNS answer that changes between check
//    and connect (DNS rebinding) cannot send the request elsewhere. Redirects are not followed.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import ipaddr from 'ipaddr.js';

/** Resolves a host name to every address it has (dns.lookup with `all`); tests hand in their own. */
export type HostResolver = (hostname: string) => Promise<LookupAddress[]>;

export const systemResolver: HostResolver = (hostname) =>
  new Promise((resolve, reject) =>
    dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) =>
      error ? reject(error) : resolve(addresses),
    ),
  );

/** Why a destination is refused. */
export type RefusedDestination = 'not_public' | 'unresolvable';

export class WebhookDestinationError extends Error {
  override name = 'WebhookDestinationError';
  readonly reason: RefusedDestination;
  constructor(reason: RefusedDestination, message: string) {
    super(message);
    this.reason = reason;
  }
}

/**
 * Whether an IP address is public unicast: not loopback, private (RFC 1918, IPv6 unique local),
 * link-local (169.254/16 with the metadata address, fe80::/10), carrier-grade NAT, multicast,
 * unspecified, documentation or otherwise reserved. IPv4-mapped and NAT64-embedded IPv6 addresses
 * are judged by the IPv4 address they carry.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress())
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  return parsed.range() === 'unicast';
}

/** The host of a URL as a resolver takes it: IPv6 literals without their brackets. */
function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

/** The addresses `hostname` resolves to, all of them public; throws a WebhookDestinationError otherwise. */
export async function resolvePublicAddresses(hostname: string, resolve: HostResolver): Promise<LookupAddress[]> {
  let addresses: LookupAddress[];
  if (ipaddr.isValid(hostname)) {
    addresses = [{ address: hostname, family: ipaddr.parse(hostname).kind() === 'ipv6' ? 6 : 4 }];
  } else {
    try {
      addresses = await resolve(hostname);
    } catch (error) {
      throw new WebhookDestinationError(
        'unresolvable',
        `${hostname} does not resolve (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
      );
    }
    if (addresses.length === 0) throw new WebhookDestinationError('unresolvable', `${hostname} resolves to no address`);
  }
  const refused = addresses.filter((entry) => !isPublicAddress(entry.address));
  if (refused.length > 0) {
    throw new WebhookDestinationError(
      'not_public',
      `${hostname} resolves to ${refused.map((entry) => entry.address).join(', ')}, not a public address (loopback, private, link-local and metadata addresses are refused)`,
    );
  }
  return addresses;
}

/** The addresses a webhook URL may be sent to, all public; throws a WebhookDestinationError otherwise. */
export function resolveWebhookDestination(
  url: string,
  resolve: HostResolver = systemResolver,
): Promise<LookupAddress[]> {
  return resolvePublicAddresses(hostOf(new URL(url)), resolve);
}

/** How a process treats webhook destinations: WEBHOOK_ALLOW_PRIVATE, and the resolver (tests hand in theirs). */
export interface WebhookDestinationPolicy {
  /** Any address, loopback included: the dev stack only. */
  allowPrivate: boolean;
  resolve?: HostResolver;
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for net/tls connections (undici's `connect.lookup`) that answers every name with the
 * addresses already checked, so the socket connects to exactly those (no second DNS answer).
 */
export function pinnedLookup(addresses: readonly LookupAddress[]) {
  return (_hostname: string, options: { all?: boolean }, callback: LookupCallback): void => {
    if (options.all) callback(null, [...addresses]);
    else callback(null, addresses[0]!.address, addresses[0]!.family);
  };
}
