import { spawn } from 'node:child_process';
import { freePorts } from '../../../../server/test/support/ports.js';
import { waitFor } from '../../../../server/test/support/wait.js';
import { callApi } from './install.js';

const DAV_USER = 'dav';
const DAV_PASS = 'dav-pass';

export interface WebdavFolder {
  url: string;
  /** A WebDAV mount of the folder on the built-in storage node and a scanned movie library over it. */
  scannedLibrary(entrance: string, adminHeaders: Record<string, string>): Promise<void>;
  stop(): Promise<void>;
}

/**
 * A folder served by `rclone serve webdav` on loopback: a remote drive for an install, so the play-agent
 * reads its files through the storage node (and its video cache) rather than from a local path.
 */
export async function startWebdavFolder(folder: string): Promise<WebdavFolder> {
  const [port] = await freePorts(1);
  const url = `http://127.0.0.1:${port}/`;
  const child = spawn(
    'rclone',
    ['serve', 'webdav', '--addr', `127.0.0.1:${port}`, '--user', DAV_USER, '--pass', DAV_PASS, folder],
    { stdio: ['ignore', 'ignore', 'ignore'] },
  );
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
  };
  try {
    await waitFor(
      async () => ((await fetch(url, { method: 'OPTIONS' }).catch(() => null)) ? true : undefined),
      30_000,
    );
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    url,
    stop,
    async scannedLibrary(entrance, headers) {
      const mount = await callApi(entrance, 'POST', '/api/storage/mounts', {
        headers,
        body: {
          name: 'dav',
          provider: 'webdav',
          config: { url, username: DAV_USER, password: DAV_PASS, allowPrivateNetwork: true },
        },
      });
      if (mount.status !== 201)
        throw new Error(`the WebDAV mount was refused: ${JSON.stringify(mount.body)}`);
      const library = await callApi(entrance, 'POST', '/api/media/libraries', {
        headers,
        body: {
          name: 'Films',
          type: 'movies',
          sources: [{ nodeId: 'node-local-storage', mountId: String(mount.body.id), path: '/' }],
        },
      });
      if (library.status !== 201) throw new Error(`the library was refused: ${JSON.stringify(library.body)}`);
      await waitFor(async () => {
        const scan = await callApi(entrance, 'GET', `/api/media/libraries/${String(library.body.id)}/scan`, {
          headers,
        });
        const state = (scan.body.scan as { state?: string } | null)?.state;
        if (state === 'failed') throw new Error(`the scan failed: ${JSON.stringify(scan.body)}`);
        return state === 'succeeded' ? true : undefined;
      }, 180_000);
    },
  };
}

/** Signs in at the play-agent as a player and reads every movie's file from start to end. */
export async function playWholeFiles(
  playAgent: string,
  user: { username: string; password: string },
  expected: number,
): Promise<void> {
  const signIn = await fetch(`${playAgent}/Users/AuthenticateByName`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-emby-authorization': 'Emby Client="e2e", Device="e2e", DeviceId="e2e-cache", Version="1"',
    },
    body: JSON.stringify({ Username: user.username, Pw: user.password }),
  });
  if (!signIn.ok) throw new Error(`play-agent sign-in answered ${signIn.status}`);
  const session = (await signIn.json()) as { AccessToken: string; User: { Id: string } };
  const headers = { 'x-emby-token': session.AccessToken };
  const listed = await fetch(
    `${playAgent}/Users/${session.User.Id}/Items?Recursive=true&IncludeItemTypes=Movie`,
    { headers },
  );
  const { Items: items } = (await listed.json()) as { Items: { Id: string }[] };
  if (items.length !== expected)
    throw new Error(`the play-agent lists ${items.length} of ${expected} movies`);
  for (const item of items) {
    const stream = await fetch(`${playAgent}/Videos/${item.Id}/stream?static=true`, { headers });
    if (!stream.ok) throw new Error(`the stream of ${item.Id} answered ${stream.status}`);
    await stream.arrayBuffer();
  }
}
