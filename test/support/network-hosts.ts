// Several "hosts" on this one machine: each a network namespace with an address of its own on one
// private /24, joined by veth pairs to a bridge. The test process stays in the machine's own
// namespace with the bridge's address (.254), so it reaches every host as a client on the network
// would; the hosts reach each other only through their addresses (each has its own loopback).
// A host is cut off by taking its link down and comes back by bringing it up. Hosts may find each
// other by name: `ip netns exec` bind-mounts /etc/netns/<namespace>/hosts over /etc/hosts.
//
// Needs root (`ip netns`). Names carry this process's pid, so a run killed before its clean-up
// leaves things the next run recognizes and removes (their pid is gone). Removal also runs at exit.
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import type { StackHost } from '@kino/dev/stack';

export interface NetworkHost extends StackHost {
  name: string;
  namespace: string;
  /** The veth end on the bridge: down cuts the host off. */
  link: string;
}

export interface TestNetwork {
  /** The address of this machine (the test process) on the network. */
  gatewayAddress: string;
  hosts: NetworkHost[];
  addHost(name: string): NetworkHost;
  /** Takes the host's link down: nothing reaches it, it reaches nothing, its processes keep running. */
  cut(host: NetworkHost): void;
  restore(host: NetworkHost): void;
  /**
   * Drops every connection attempt that reaches the host (iptables in its namespace: only replies to
   * the connections it opened itself get in), as a machine behind NAT or a closed firewall.
   */
  refuseInbound(host: NetworkHost): void;
  /**
   * Lets every host of `among` (default: every host added so far) resolve each name to its host's
   * address, as a container network's DNS resolves service names: /etc/hosts inside each namespace.
   */
  nameHosts(names: Readonly<Record<string, NetworkHost>>, among?: readonly NetworkHost[]): void;
  /** Deletes every namespace, link and the bridge. Idempotent. */
  remove(): void;
}

function ip(...args: string[]): string {
  return execFileSync('ip', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

function tryIp(...args: string[]): void {
  try {
    ip(...args);
  } catch {
    // Already gone.
  }
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const namespacePattern = /^kino-(\d+)-/;
const bridgePattern = /^kbr(\d+)$/;

/** Namespaces and bridges of earlier runs whose process is gone. */
function removeLeftovers(): void {
  for (const line of ip('netns', 'list').split('\n')) {
    const name = line.split(' ')[0] ?? '';
    const pid = namespacePattern.exec(name)?.[1];
    if (pid && !pidAlive(Number(pid))) {
      tryIp('netns', 'delete', name);
      rmSync(`/etc/netns/${name}`, { recursive: true, force: true });
    }
  }
  for (const line of ip('-o', 'link', 'show', 'type', 'bridge').split('\n')) {
    const name = (line.split(': ')[1] ?? '').split('@')[0] ?? '';
    const pid = bridgePattern.exec(name)?.[1];
    if (pid && !pidAlive(Number(pid))) tryIp('link', 'delete', name);
  }
}

/** A /24 under 10.77/16 that no interface of this machine is on. */
function freeSubnet(): string {
  const used = ip('-4', '-o', 'addr', 'show');
  for (let attempt = 0; attempt < 50; attempt++) {
    const third = 1 + ((process.pid + attempt) % 250);
    if (!used.includes(` 10.77.${third}.`)) return `10.77.${third}`;
  }
  throw new Error('no free 10.77.x.0/24 subnet');
}

export function createTestNetwork(): TestNetwork {
  removeLeftovers();
  const subnet = freeSubnet();
  const bridge = `kbr${process.pid}`;
  const hosts: NetworkHost[] = [];
  let removed = false;

  const remove = () => {
    if (removed) return;
    removed = true;
    process.off('exit', remove);
    // Deleting a namespace deletes its veth pair with it.
    for (const host of hosts) {
      tryIp('netns', 'delete', host.namespace);
      rmSync(`/etc/netns/${host.namespace}`, { recursive: true, force: true });
    }
    tryIp('link', 'delete', bridge);
  };
  process.on('exit', remove);

  try {
    ip('link', 'add', bridge, 'type', 'bridge');
    ip('addr', 'add', `${subnet}.254/24`, 'dev', bridge);
    ip('link', 'set', bridge, 'up');
  } catch (error) {
    remove();
    throw error;
  }

  return {
    gatewayAddress: `${subnet}.254`,
    hosts,
    addHost(name) {
      const index = hosts.length + 1;
      const namespace = `kino-${process.pid}-${name}`;
      const link = `kv${process.pid}-${index}`;
      const inside = `kp${process.pid}-${index}`;
      const address = `${subnet}.${index}`;
      const host: NetworkHost = { name, namespace, link, address, runIn: ['ip', 'netns', 'exec', namespace] };
      hosts.push(host);
      ip('netns', 'add', namespace);
      ip('link', 'add', link, 'type', 'veth', 'peer', 'name', inside);
      ip('link', 'set', inside, 'netns', namespace);
      ip('link', 'set', link, 'master', bridge, 'up');
      ip('-n', namespace, 'link', 'set', inside, 'name', 'eth0');
      ip('-n', namespace, 'addr', 'add', `${address}/24`, 'dev', 'eth0');
      ip('-n', namespace, 'link', 'set', 'eth0', 'up');
      ip('-n', namespace, 'link', 'set', 'lo', 'up');
      return host;
    },
    cut(host) {
      ip('link', 'set', host.link, 'down');
    },
    restore(host) {
      ip('link', 'set', host.link, 'up');
    },
    refuseInbound(host) {
      const iptables = (...args: string[]) =>
        execFileSync('ip', ['netns', 'exec', host.namespace, 'iptables', ...args], { stdio: 'pipe' });
      iptables('-A', 'INPUT', '-i', 'lo', '-j', 'ACCEPT');
      iptables('-A', 'INPUT', '-m', 'conntrack', '--ctstate', 'ESTABLISHED,RELATED', '-j', 'ACCEPT');
      iptables('-P', 'INPUT', 'DROP');
    },
    nameHosts(names, among = hosts) {
      const lines = ['127.0.0.1 localhost', ...Object.entries(names).map(([name, host]) => `${host.address} ${name}`)];
      for (const host of among) {
        mkdirSync(`/etc/netns/${host.namespace}`, { recursive: true });
        writeFileSync(`/etc/netns/${host.namespace}/hosts`, `${lines.join('\n')}\n`);
      }
    },
    remove,
  };
}
