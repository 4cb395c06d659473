import { call, type Answer, type Json } from './playback-install.js';
import { waitFor } from './runtime.js';

export type AdminCall = (method: string, route: string, body?: unknown) => Promise<Answer>;

/**
 * A running `svc standalone` set up as an administrator does it: the first account, signed in to the
 * console, once the built-in storage node answers. Answers the admin call.
 */
export async function standaloneAdmin(entrance: string): Promise<AdminCall> {
  await call(entrance, 'POST', '/api/auth/setup/admin', {
    body: { username: 'root', password: 'root-password-1' },
  });
  const login = await call(entrance, 'POST', '/api/auth/login', {
    body: { username: 'root', password: 'root-password-1', client: 'console' },
  });
  const admin: AdminCall = (method, route, body) =>
    call(entrance, method, route, { headers: { 'x-admin-token': String(login.body.adminToken) }, body });
  // The built-in storage node registers with the config service shortly after the install is up.
  await waitFor(async () =>
    (await call(entrance, 'GET', '/api/storage/ping')).status === 200 ? true : undefined,
  );
  return admin;
}

/** Creates a movies library on `folder` of a mount of the built-in storage node; answers once it is scanned. */
export async function scannedLibrary(admin: AdminCall, mountId: string, folder: string): Promise<string> {
  const library = await admin('POST', '/api/media/libraries', {
    name: 'Movies',
    type: 'movies',
    sources: [{ nodeId: 'node-local-storage', mountId, path: folder }],
  });
  if (library.status !== 201) throw new Error(`library not created: ${library.status} ${library.text}`);
  const libraryId = String(library.body.id);
  // Creating the library started its first scan.
  await waitFor(async () => {
    const scan = (await admin('GET', `/api/media/libraries/${libraryId}/scan`)).body.scan as Json | null;
    if (scan?.state === 'failed') throw new Error(`scan failed: ${JSON.stringify(scan)}`);
    return scan?.state === 'succeeded' ? true : undefined;
  }, 300_000);
  return libraryId;
}

/**
 * The administrator's set-up above, then a local mount of `root` on the built-in storage node and a movies
 * library on `folder` of it, scanned. Answers the admin call and the library id.
 */
export async function standaloneWithLibrary(
  entrance: string,
  root: string,
  folder: string,
): Promise<{ admin: AdminCall; libraryId: string }> {
  const admin = await standaloneAdmin(entrance);
  const mount = await admin('POST', '/api/storage/mounts', {
    name: 'media',
    provider: 'local',
    config: { root },
  });
  if (mount.status !== 201) throw new Error(`mount not created: ${mount.status} ${mount.text}`);
  return { admin, libraryId: await scannedLibrary(admin, String(mount.body.id), folder) };
}

/**
 * A drive account of `kind` with `config`, a mount of it (`mountConfig` beside the account id) on the built-in
 * storage node and a movies library on `folder` of it, scanned. Answers the library id.
 */
export async function driveLibrary(
  admin: AdminCall,
  kind: 'drive_a' | 'drive_b',
  config: Json,
  mountConfig: Json,
  folder: string,
): Promise<string> {
  const name = kind.replace('_', ' ');
  const account = await admin('POST', '/api/storage/drive-accounts', { name, kind, config });
  if (account.status !== 201) throw new Error(`drive account not created: ${account.status} ${account.text}`);
  const mount = await admin('POST', '/api/storage/mounts', {
    name: kind.replace('_', '-'),
    provider: kind,
    config: { accountId: String(account.body.id), ...mountConfig },
  });
  if (mount.status !== 201) throw new Error(`mount not created: ${mount.status} ${mount.text}`);
  return scannedLibrary(admin, String(mount.body.id), folder);
}
