import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Agent } from 'undici';
import type { Machine } from './lab.js';
import { runIn, spawnIn, type NsProcess } from './ns-process.js';
import { waitFor } from '../wait.js';

/*
 * How the test process (in the root namespace) talks to a lab: a socat inside a machine listens on a Unix
 * socket (the file system is shared) and opens a TCP connection from that machine for every client. Requests
 * sent through it really start on that machine, e.g. on the "public" one that reaches only the edge and the
 * node ports.
 */
export interface Tunnel {
  /** For undici's request(): every connection goes through the socket. */
  dispatcher: Agent;
  close(): Promise<void>;
}

export async function openTunnel(from: Machine, host: string, port: number): Promise<Tunnel> {
  const folder = mkdtempSync(path.join(tmpdir(), 'svc-lab-tunnel-'));
  const socketPath = path.join(folder, 'socket');
  const socat: NsProcess = spawnIn(
    from,
    `tunnel ${from.name}→${host}:${port}`,
    ['socat', `UNIX-LISTEN:${socketPath},fork,mode=600`, `TCP:${host}:${port}`],
    { PATH: process.env.PATH ?? '/usr/bin:/bin' },
  );
  const dispatcher = new Agent({ connect: { socketPath } });
  await waitFor(() => (existsSync(socketPath) ? true : undefined), 30_000);
  return {
    dispatcher,
    close: async () => {
      await dispatcher.close();
      await socat.stop(2_000);
      rmSync(folder, { recursive: true, force: true });
    },
  };
}

export type Reach = 'open' | 'refused' | 'unreachable';

/**
 * Tries a TCP connection from a machine to each host:port (bash's /dev/tcp, one at a time) and tells what
 * happened: connected, refused (nothing listens on that address), or no route at all.
 */
export async function probeFrom(machine: Machine, targets: string[]): Promise<Record<string, Reach>> {
  const script = targets
    .map((target) => {
      const [host, port] = target.split(':');
      return `if out=$( (exec 3<>/dev/tcp/${host}/${port}) 2>&1 ); then echo "${target} open"; else echo "${target} $out"; fi`;
    })
    .join('\n');
  const { output } = await runIn(machine, ['timeout', '120', 'bash', '-c', script], {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    LANG: 'C',
  });
  const result: Record<string, Reach> = {};
  for (const target of targets) {
    const line = output.split('\n').find((entry) => entry.startsWith(`${target} `)) ?? '';
    result[target] = line.endsWith(' open')
      ? 'open'
      : /Connection refused/.test(line)
        ? 'refused'
        : /Network is unreachable|No route to host/.test(line)
          ? 'unreachable'
          : (() => {
              throw new Error(`probe of ${target} answered: ${line || output}`);
            })();
  }
  return result;
}
