import { mediaFixtures, type MediaFixtures } from '../../../../server/test/support/media-fixtures.js';
import { callApi } from './install.js';

export interface Arranged {
  fixtures: MediaFixtures;
  adminHeaders: Record<string, string>;
  libraryId: string;
  mountId: string;
}

/**
 * State for pages that need data, made through the public API: the first administrator, a local mount
 * of the generated media, a scanned movie library and a plain user.
 */
export async function arrangeLibrary(
  entrance: string,
  admin: { username: string; password: string },
  user: { username: string; password: string },
): Promise<Arranged> {
  const fixtures = await mediaFixtures();
  await callApi(entrance, 'POST', '/api/auth/setup/admin', { body: admin });
  const login = await callApi(entrance, 'POST', '/api/auth/login', { body: { ...admin, client: 'console' } });
  const adminHeaders = { 'x-admin-token': String(login.body.adminToken) };
  const call = async (method: string, route: string, body?: unknown) => {
    const answer = await callApi(entrance, method, route, { headers: adminHeaders, body });
    if (answer.status >= 300)
      throw new Error(`${method} ${route} → ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body;
  };
  const mount = await call('POST', '/api/storage/mounts', {
    name: 'media',
    provider: 'local',
    config: { root: fixtures.library },
  });
  const library = await call('POST', '/api/media/libraries', {
    name: 'Films',
    type: 'movies',
    sources: [{ nodeId: 'node-local-storage', mountId: mount.id, path: '/Movies' }],
  });
  // Creating the library started its first scan.
  const deadline = Date.now() + 60_000;
  for (;;) {
    const { scan } = (await call('GET', `/api/media/libraries/${String(library.id)}/scan`)) as {
      scan: { state: string } | null;
    };
    if (scan?.state === 'succeeded') break;
    if (scan?.state === 'failed') throw new Error('scan failed');
    if (Date.now() > deadline) throw new Error('scan did not finish');
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  await call('POST', '/api/auth/admin/users', user);
  return { fixtures, adminHeaders, libraryId: String(library.id), mountId: String(mount.id) };
}
