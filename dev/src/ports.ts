import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

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

/**
 * Ports handed out by any process of this machine in the last hour, one file each. Test files run in
 * processes of their own, each choosing at random in the same range: a port one has checked free is
 * only bound by its service a second or more later, and another could check and take the same one
 * meanwhile (seen under load: a delivery node's EADDRINUSE, SeaweedFS exiting). A claim is a file
 * created only if absent. It only has to outlive that window: once the service listens, the listen
 * check keeps others off; so after ten minutes it is stale and the port may be handed out again.
 */
const claimLifetimeMs = 10 * 60_000;
/** The claims' directory: KINO_PORT_CLAIMS_DIR (a test of the claims keeps its own), else one in the temp dir. */
const claimDir = () => process.env.KINO_PORT_CLAIMS_DIR ?? join(tmpdir(), 'kino-port-claims');

/** Whether another process claimed `port` within the claim lifetime. */
function claimedElsewhere(port: number): boolean {
  try {
    return Date.now() - statSync(join(claimDir(), String(port))).mtimeMs < claimLifetimeMs;
  } catch {
    return false;
  }
}

function claim(port: number): boolean {
  const file = join(claimDir(), String(port));
  try {
    mkdirSync(claimDir(), { recursive: true });
    writeFileSync(file, String(process.pid), { flag: 'wx' });
    return true;
  } catch (error) {
    // A directory that cannot be written leaves the listen check alone to decide, as before.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return true;
  }
  try {
    if (Date.now() - statSync(file).mtimeMs < claimLifetimeMs) return false;
    writeFileSync(file, String(process.pid));
    return true;
  } catch {
    return false;
  }
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** A loopback port nothing listens on, outside the ephemeral range, not handed out before by this process or claimed by another. */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = rangeStart + Math.floor(Math.random() * (rangeEnd - rangeStart));
    if (handedOut.has(port)) continue;
    handedOut.add(port);
    if (claim(port) && (await canListen(port))) return port;
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
    if (ports.some((port) => handedOut.has(port) || claimedElsewhere(port))) continue;
    if (!ports.every(claim)) continue;
    const free = await Promise.all(ports.map(canListen));
    if (free.every(Boolean)) {
      for (const port of ports) handedOut.add(port);
      return base;
    }
  }
  throw new Error(`no free port base found between ${rangeStart} and ${rangeEnd}`);
}
