import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/*
 * A small network of Linux network namespaces for tests that need separate machines. Every namespace of one
 * lab is named `<PREFIX><pid>-<name>`; a "switch" namespace holds one bridge per network, and every machine
 * gets one veth pair per network it joins (its end is called after the network, the switch's end `v<n>`).
 * Nothing is added to the root namespace, so concurrent labs never collide on addresses or interface names.
 * Needs root (CAP_SYS_ADMIN and CAP_NET_ADMIN) and iproute2.
 */

export const NETNS_PREFIX = 'svclab-';

export interface NetworkSpec {
  /** Short name, also the interface name inside each machine (at most 15 characters). */
  name: string;
  /** The first three octets of a /24, e.g. '10.77.1'. */
  subnet: string;
}

export interface Machine {
  name: string;
  /** The namespace's full name, for `ip netns exec`. */
  netns: string;
  /** This machine's address on each network it joined. */
  addresses: Record<string, string>;
}

async function ip(...args: string[]): Promise<string> {
  return (await run('ip', args, { timeout: 30_000 })).stdout;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Kills every process inside a namespace, then removes it (a namespace lives on while a process uses it). */
async function removeNamespace(netns: string): Promise<void> {
  const pids = (await ip('netns', 'pids', netns).catch(() => ''))
    .split('\n')
    .map((line) => Number(line.trim()))
    .filter((pid) => pid > 1);
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone already
    }
  }
  await ip('netns', 'delete', netns).catch(() => undefined);
}

async function namespaces(): Promise<string[]> {
  return (await ip('netns', 'list'))
    .split('\n')
    .map((line) => line.split(' ')[0]!.trim())
    .filter((name) => name !== '');
}

/** Removes the namespaces of labs whose test process is gone (an aborted run), found by prefix and pid. */
export async function removeStaleLabs(): Promise<string[]> {
  const stale = (await namespaces()).filter((name) => {
    const match = new RegExp(`^${NETNS_PREFIX}(\\d+)-`).exec(name);
    return match !== null && !isAlive(Number(match[1]));
  });
  for (const name of stale) await removeNamespace(name);
  return stale;
}

export class NetLab {
  private readonly switchNs: string;
  private readonly machines = new Map<string, Machine>();
  private readonly networks = new Map<string, NetworkSpec>();
  private ports = 0;

  private constructor(readonly id: string) {
    this.switchNs = `${id}-switch`;
  }

  /** Removes stale labs, then creates the switch namespace with one bridge per network. */
  static async create(networks: NetworkSpec[]): Promise<NetLab> {
    await removeStaleLabs();
    const lab = new NetLab(`${NETNS_PREFIX}${process.pid}`);
    try {
      await ip('netns', 'add', lab.switchNs);
      await ip('-n', lab.switchNs, 'link', 'set', 'lo', 'up');
      for (const network of networks) {
        if (network.name.length > 15) throw new Error(`network name ${network.name} is too long`);
        lab.networks.set(network.name, network);
        await ip('-n', lab.switchNs, 'link', 'add', network.name, 'type', 'bridge');
        await ip('-n', lab.switchNs, 'link', 'set', network.name, 'up');
      }
    } catch (error) {
      await lab.destroy();
      throw error;
    }
    return lab;
  }

  /** A new machine joined to the given networks with host number `host` (the last octet) on each. */
  async machine(name: string, host: number, joins: string[]): Promise<Machine> {
    const netns = `${this.id}-${name}`;
    await ip('netns', 'add', netns);
    const machine: Machine = { name, netns, addresses: {} };
    this.machines.set(name, machine);
    await ip('-n', netns, 'link', 'set', 'lo', 'up');
    for (const joined of joins) {
      const network = this.networks.get(joined);
      if (!network) throw new Error(`no network ${joined}`);
      this.ports += 1;
      const peer = `v${this.ports}`;
      await ip(
        'link',
        'add',
        'name',
        joined,
        'netns',
        netns,
        'type',
        'veth',
        'peer',
        'name',
        peer,
        'netns',
        this.switchNs,
      );
      await ip('-n', this.switchNs, 'link', 'set', peer, 'master', joined);
      await ip('-n', this.switchNs, 'link', 'set', peer, 'up');
      const address = `${network.subnet}.${host}`;
      await ip('-n', netns, 'addr', 'add', `${address}/24`, 'dev', joined);
      await ip('-n', netns, 'link', 'set', joined, 'up');
      machine.addresses[joined] = address;
    }
    return machine;
  }

  /** The command line that runs `argv` inside a machine. */
  exec(machine: Machine, argv: string[]): string[] {
    return ['ip', 'netns', 'exec', machine.netns, ...argv];
  }

  /** Kills every process in the lab's namespaces and removes them; safe to call twice. */
  async destroy(): Promise<void> {
    for (const machine of this.machines.values()) await removeNamespace(machine.netns);
    this.machines.clear();
    await removeNamespace(this.switchNs);
    // Anything of this lab left behind (a machine whose creation failed half-way).
    for (const name of await namespaces()) {
      if (name.startsWith(`${this.id}-`)) await removeNamespace(name);
    }
  }
}
