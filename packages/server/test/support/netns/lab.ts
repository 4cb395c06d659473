import { execFile } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
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

/** Runs `ip [options] -batch <file>` with one command a line. */
async function batch(options: string[], commands: string[]): Promise<void> {
  const file = path.join(
    tmpdir(),
    `svc-lab-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}.ip`,
  );
  writeFileSync(file, `${commands.join('\n')}\n`);
  try {
    await ip(...options, '-batch', file);
  } finally {
    rmSync(file, { force: true });
  }
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
  private readonly members = new Map<string, Machine>();
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

  /** New machines, each joined to its networks with host number `host` (the last octet) on each. */
  async machines(specs: { name: string; host: number; joins: string[] }[]): Promise<Machine[]> {
    // A few `ip -batch` runs for all of them: dozens of separate `ip` runs take many seconds on a loaded
    // machine. A batch line takes no `-n`, so: one batch in the root namespace (namespaces, veth pairs), one
    // inside the switch (bridge ports), one inside each machine (addresses, links up).
    const root: string[] = [];
    const switchPorts: string[] = [];
    const inside = new Map<string, string[]>();
    const created: Machine[] = [];
    for (const { name, host, joins } of specs) {
      const netns = `${this.id}-${name}`;
      const machine: Machine = { name, netns, addresses: {} };
      this.members.set(name, machine);
      created.push(machine);
      root.push(`netns add ${netns}`);
      const own = ['link set lo up'];
      inside.set(netns, own);
      for (const joined of joins) {
        const network = this.networks.get(joined);
        if (!network) throw new Error(`no network ${joined}`);
        this.ports += 1;
        const peer = `v${this.ports}`;
        const address = `${network.subnet}.${host}`;
        root.push(
          `link add name ${joined} netns ${netns} type veth peer name ${peer} netns ${this.switchNs}`,
        );
        switchPorts.push(`link set ${peer} master ${joined}`, `link set ${peer} up`);
        own.push(`addr add ${address}/24 dev ${joined}`, `link set ${joined} up`);
        machine.addresses[joined] = address;
      }
    }
    await batch([], root);
    await batch(['-n', this.switchNs], switchPorts);
    for (const [netns, commands] of inside) await batch(['-n', netns], commands);
    return created;
  }

  /** The command line that runs `argv` inside a machine. */
  exec(machine: Machine, argv: string[]): string[] {
    return ['ip', 'netns', 'exec', machine.netns, ...argv];
  }

  /** Kills every process in the lab's namespaces and removes them; safe to call twice. */
  async destroy(): Promise<void> {
    for (const machine of this.members.values()) await removeNamespace(machine.netns);
    this.members.clear();
    await removeNamespace(this.switchNs);
    // Anything of this lab left behind (a machine whose creation failed half-way).
    for (const name of await namespaces()) {
      if (name.startsWith(`${this.id}-`)) await removeNamespace(name);
    }
  }
}
