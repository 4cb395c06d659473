import { call, type Answer, type Json } from './playback-install.js';
import { waitFor } from './runtime.js';

export type AdminCall = (method: string, route: string, body?: unknown) => Promise<Answer>;

/**
 * A running `svc standalone` set up as an administrator does it: the first account, signed in to the
 * console, a local mount of `root` on the built-in storage node and a movies library on `folder` of it,
 * scanned. Answers the admin call and the library id.
 */
export async function standaloneWithLibrary(
  entrance: string,
  root: string,
  folder: string,
): Promise<{ admin: AdminCall; libraryId: string }> {
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
  const mount = await admin('POST', '/api/storage/mounts', {
    name: 'media',
    provider: 'local',
    config: { root },
  });
  if (mount.status !== 201) throw new Error(`mount not created: ${mount.status} ${mount.text}`);
  const library = await admin('POST', '/api/media/libraries', {
    name: 'Movies',
    type: 'movies',
    sources: [{ nodeId: 'node-local-storage', mountId: mount.body.id, path: folder }],
  });
  const libraryId = String(library.body.id);
  // Creating the library started its first scan.
  await waitFor(async () => {
    const scan = (await admin('GET', `/api/media/libraries/${libraryId}/scan`)).body.scan as Json | null;
    return scan?.state === 'succeeded' ? true : undefined;
  }, 300_000);
  return { admin, libraryId };
}
