import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { launchChromium } from '../packages/web/test/e2e/support/browser.js';
import { callApi, startStandalone } from '../packages/web/test/e2e/support/install.js';

const DIST = path.resolve('packages/web/dist');

interface ManifestChunk {
  file: string;
  src?: string;
  isEntry?: boolean;
  imports?: string[];
  dynamicImports?: string[];
  css?: string[];
}
type Manifest = Record<string, ManifestChunk>;

const gzipSize = (file: string) => gzipSync(readFileSync(path.join(DIST, file)), { level: 9 }).length;
const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;

/** Every file a chunk needs, following static imports only (what loads before it renders). */
function closure(manifest: Manifest, key: string, seen = new Set<string>()): Set<string> {
  const chunk = manifest[key];
  if (!chunk || seen.has(key)) return seen;
  seen.add(key);
  for (const imported of chunk.imports ?? []) closure(manifest, imported, seen);
  return seen;
}

const filesOf = (manifest: Manifest, keys: Set<string>) =>
  new Set([...keys].flatMap((key) => [manifest[key]!.file, ...(manifest[key]!.css ?? [])]));

function bundleSizes(): void {
  const manifest = JSON.parse(readFileSync(path.join(DIST, '.vite/manifest.json'), 'utf8')) as Manifest;
  const entryKey = Object.keys(manifest).find((key) => manifest[key]!.isEntry)!;
  const entryFiles = filesOf(manifest, closure(manifest, entryKey));
  const entryBytes = [...entryFiles].reduce((sum, file) => sum + gzipSize(file), 0);
  console.log('\nProduction bundle (gzip -9), loaded on first visit:');
  console.log(
    `  entry (shell, router, UI library, i18n)   ${kib(entryBytes)}   ${[...entryFiles].join(', ')}`,
  );
  console.log('\nPer route, what the page adds on top of the entry:');
  // Page modules are the lazily loaded `src/<app>/<area>/<name>-page.tsx` files of the registries.
  const pageKeys = Object.keys(manifest)
    .map((key) => ({ key, match: /src\/(console|portal)\/([^/]+)\/[^/]+-page\.tsx$/.exec(key) }))
    .filter((entry) => entry.match !== null)
    .sort((a, b) => a.key.localeCompare(b.key));
  for (const { key, match } of pageKeys) {
    const added = [...filesOf(manifest, closure(manifest, key))].filter((file) => !entryFiles.has(file));
    const bytes = added.reduce((sum, file) => sum + gzipSize(file), 0);
    const route = `/${match![1]}/${match![2]}`;
    console.log(`  ${route.padEnd(22)} ${kib(bytes).padStart(10)}   (${added.length} files)`);
  }
  const all = readdirSync(path.join(DIST, 'assets')).reduce(
    (sum, file) => sum + gzipSize(`assets/${file}`),
    0,
  );
  console.log(`  all assets together                       ${kib(all)}`);
}

async function firstRender(): Promise<void> {
  const install = await startStandalone();
  const browser = await launchChromium();
  try {
    await callApi(install.entrance, 'POST', '/api/auth/setup/admin', {
      body: { username: 'bench', password: 'bench-password-1' },
    });
    const runs = 7;
    const signInPage: number[] = [];
    const console_: number[] = [];
    for (let run = 0; run < runs; run += 1) {
      const context = await browser.newContext();
      const page = await context.newPage();
      let begin = performance.now();
      await page.goto(`${install.entrance}/console/login`);
      await page.getByTestId('sign-in-form').waitFor();
      signInPage.push(performance.now() - begin);
      await page.locator('input[name="username"]').fill('bench');
      await page.locator('input[name="password"]').fill('bench-password-1');
      begin = performance.now();
      await page.locator('button[type="submit"]').click();
      // First render: the navigation and the dashboard's own content (no skeleton left).
      await page.getByTestId('nav-dashboard').waitFor();
      await page.getByTestId('dashboard').waitFor();
      await page.locator('[data-testid="loading"]').first().waitFor({ state: 'detached' });
      console_.push(performance.now() - begin);
      await context.close();
    }
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
    console.log(`\nHeadless Chromium, ${runs} fresh browser contexts (cold cache each), median:`);
    console.log(
      `  reference: sign-in page from a cold cache to its form      ${median(signInPage).toFixed(0)} ms`,
    );
    console.log(
      `  sign-in click → console dashboard rendered with its data   ${median(console_).toFixed(0)} ms`,
    );
  } finally {
    await browser.close();
    await install.stop();
  }
}

export async function benchWeb(): Promise<void> {
  bundleSizes();
  await firstRender();
}
