import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

// Ports for the services we start come from BELOW the kernel's ephemeral range. A port the OS
// hands out for `listen(0)` comes from that range, which outgoing connections draw from too: one of
// them can take it between our check and the service's own bind seconds later (seen: SeaweedFS
// exiting with "address already in use").
function ephemeralRangeStart(): number {
  try {
    const [low] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/);
    const start = Number(low);
    return Number.isInteger(start) && start > 12_000 ? start : 32_768;
  } catch {
    return 32_768;
  }
}

const rangeEnd = ephemeralRangeStart() - 1;
const rangeStart = Math.max(10_000, rangeEnd - 20_000);
const handedOut = new Set<number>();

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** A loopback port nothing listens on, outside the ephemeral range, not handed out before by this process. */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = rangeStart + Math.floor(Math.random() * (rangeEnd - rangeStart));
    if (handedOut.has(port)) continue;
    handedOut.add(port);
    if (await canListen(port)) return port;
  }
  throw new Error(`no free port found between ${rangeStart} and ${rangeEnd}`);
}

/**
 * A base port such that every `base + offset` is free, outside the ephemeral range: a whole stack's
 * ports at once (the dev stack's layout is a base plus fixed offsets).
 */
export async function freePortBase(offsets: number[]): Promise<number> {
  const span = Math.max(...offsets);
  if (rangeStart + span >= rangeEnd) throw new Error(`no port base fits offsets up to ${span} below ${rangeEnd}`);
  for (let attempt = 0; attempt < 100; attempt++) {
    const base = rangeStart + Math.floor(Math.random() * (rangeEnd - span - rangeStart));
    const ports = offsets.map((offset) => base + offset);
    if (ports.some((port) => handedOut.has(port))) continue;
    const free = await Promise.all(ports.map(canListen));
    if (free.every(Boolean)) {
      for (const port of ports) handedOut.add(port);
      return base;
    }
  }
  throw new Error(`no free port base found between ${rangeStart} and ${rangeEnd}`);
}
