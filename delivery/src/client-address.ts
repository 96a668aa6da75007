// The viewer's address as delivery sees it: the socket's, unless the socket is one of the reverse
// proxies or load balancers in front of the node (DELIVERY_TRUSTED_PROXIES), whose X-Forwarded-For
// is then believed, read from its right end (the entry the nearest proxy added) leftwards past every
// trusted proxy. Without trusted proxies the header is ignored, so no client can pass for another by
// sending it. The API does the same through Fastify's trustProxy (proxy-addr); delivery is a plain
// node:http server, and node's BlockList matches addresses and CIDR ranges, so no library is added.
import { BlockList, isIP } from 'node:net';
import type { IncomingMessage } from 'node:http';

/** proxy-addr's named ranges, which API_TRUSTED_PROXIES accepts too. */
const namedRanges: Record<string, string[]> = {
  loopback: ['127.0.0.1/8', '::1/128'],
  linklocal: ['169.254.0.0/16', 'fe80::/10'],
  uniquelocal: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7'],
};

/** An IPv4 address a dual-stack socket reports as `::ffff:a.b.c.d`, as IPv4. */
function plain(address: string): string {
  return address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
}

/** Reads a request's client address, trusting X-Forwarded-For from the `trusted` proxies only. */
export function clientAddressReader(trusted: readonly string[]): (req: IncomingMessage) => string {
  const proxies = new BlockList();
  for (const entry of trusted.flatMap((e) => namedRanges[e] ?? [e])) {
    const [address, prefix] = entry.split('/') as [string, string | undefined];
    const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (prefix === undefined) proxies.addAddress(address, family);
    else proxies.addSubnet(address, Number(prefix), family);
  }
  const isTrusted = (address: string) => {
    const family = isIP(address);
    return family !== 0 && proxies.check(address, family === 6 ? 'ipv6' : 'ipv4');
  };
  return (req) => {
    let client = plain(req.socket.remoteAddress ?? 'unknown');
    if (trusted.length === 0) return client;
    const header = req.headers['x-forwarded-for'];
    const forwarded = (Array.isArray(header) ? header.join(',') : (header ?? ''))
      .split(',')
      .map((entry) => plain(entry.trim()))
      .filter(Boolean);
    while (isTrusted(client) && forwarded.length > 0) client = forwarded.pop()!;
    return client;
  };
}
