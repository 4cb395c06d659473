// `npm run bench -- <name>`: prints figures next to a reference measured in the same run.
import { benchStartup } from './startup.js';
import { benchAuth } from './auth.js';

const benches: Record<string, () => Promise<void>> = {
  startup: benchStartup,
  auth: benchAuth,
  storage: (await import('./storage.js')).benchStorage,
  stream: (await import('./stream.js')).benchStream,
  web: (await import('./web.js')).benchWeb,
  report: (await import('./report.js')).benchReport,
  vfs: (await import('./vfs.js')).benchVfs,
  'drive-cdn': (await import('./drive-cdn.js')).benchDriveCdn,
  'drive-redirect': (await import('./drive-redirect.js')).benchDriveRedirect,
  artwork: (await import('./artwork.js')).benchArtwork,
};

const name = process.argv[2];
const bench = name ? benches[name] : undefined;
if (!bench) {
  console.error(`usage: npm run bench -- <${Object.keys(benches).join('|')}>`);
  process.exit(2);
}
await bench();
