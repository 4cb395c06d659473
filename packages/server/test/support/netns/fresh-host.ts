import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/*
 * The programs of a freshly installed Debian host with curl added: a folder that becomes the whole PATH of the
 * install command. It links every program of the packages Debian marks Essential (the set no installation can
 * lack: coreutils, util-linux, bash, grep, sed, tar, …) plus curl, and nothing else: no Node.js, no Java, no
 * docker, no ffmpeg, no systemd, no package manager (apt is not Essential). The install command runs with
 * `env -i PATH=<folder>` inside its own network namespace, so it finds nothing of the test machine by name.
 */
export interface FreshHostPath {
  dir: string;
  /** Programs linked, by name. */
  programs: Set<string>;
}

function essentialPrograms(): string[] {
  const packages = execFileSync('dpkg-query', ['-Wf', '${Package} ${Essential}\\n'], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.endsWith(' yes'))
    .map((line) => line.split(' ')[0]!);
  const files = execFileSync('dpkg', ['-L', ...packages], { encoding: 'utf8' }).split('\n');
  return files.filter((file) => /^\/(usr\/)?s?bin\/[^/]+$/.test(file));
}

export function freshHostPath(): FreshHostPath {
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-fresh-host-bin-'));
  const programs = new Set<string>();
  const curl = execFileSync('bash', ['-c', 'command -v curl'], { encoding: 'utf8' }).trim();
  for (const file of [...essentialPrograms(), curl]) {
    const name = path.basename(file);
    // /usr/bin and /bin are one folder on merged-/usr systems: the first one found wins.
    if (programs.has(name) || !existsSync(file)) continue;
    symlinkSync(file, path.join(dir, name));
    programs.add(name);
  }
  return { dir, programs };
}
