// Runs the whole suite with vitest and ends with the plain summary line CI reads: 'N passed, N failed'.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';

const resultsDir = path.resolve('test-results');
mkdirSync(resultsDir, { recursive: true });
const jsonFile = path.join(resultsDir, 'vitest.json');
rmSync(jsonFile, { force: true });

const args = [
  'vitest',
  'run',
  '--reporter=default',
  '--reporter=json',
  `--outputFile.json=${jsonFile}`,
  ...process.argv.slice(2),
];
const run = spawnSync('npx', args, { stdio: 'inherit' });

let passed = 0;
let failed = 0;
try {
  const report = JSON.parse(readFileSync(jsonFile, 'utf8'));
  passed = report.numPassedTests;
  failed = report.numFailedTests + (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
  // A suite that crashed before its tests ran counts as a failure too.
  for (const suite of report.testResults ?? []) {
    if (suite.status === 'failed' && (suite.assertionResults ?? []).length === 0) failed += 1;
  }
} catch {
  failed = Math.max(failed, 1);
}
if (run.status !== 0 && failed === 0) failed = 1;
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
