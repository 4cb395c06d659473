import { readFileSync } from 'node:fs';

// Static parts of the worker-node scripts, kept as bash in node-scripts/*.sh (see script-generator.ts and
// docs/node-install.md). Values of the node are never pasted into them; the bodies read the readonly variables
// of the generated header.
//
// Rules kept throughout: every command that might read standard input gets </dev/null (the script itself
// arrives on bash's standard input with `curl | bash`); functions that answer a question print the answer and
// succeed (a failing command substitution would trigger the ERR trap); failures that are expected are handled
// in `if` conditions; unexpected ones reach the ERR trap, which names the step, the line and the exit code.

/**
 * The files' text by name, put into the bundles at build time (scripts/node-scripts.mjs, the esbuild `define`
 * of svc.mjs and of the node binary), so the built program needs no files beside it. Absent when the sources
 * run directly (tests, tsx): the files are read from node-scripts/ then.
 */
declare const __SVC_NODE_SCRIPTS__: Readonly<Record<string, string>> | undefined;

const EMBEDDED = typeof __SVC_NODE_SCRIPTS__ === 'undefined' ? undefined : __SVC_NODE_SCRIPTS__;

function nodeScript(name: string): string {
  const embedded = EMBEDDED?.[name];
  if (embedded !== undefined) return embedded;
  if (EMBEDDED !== undefined) throw new Error(`the build holds no node script ${name}.sh`);
  return readFileSync(new URL(`./node-scripts/${name}.sh`, import.meta.url), 'utf8');
}

/** Logging, the ERR trap, settings and service helpers: every kind. */
export const BODY_COMMON = nodeScript('body-common');
/** The health check: every kind but uninstall. */
export const BODY_HEALTH = nodeScript('body-health');
/** First installs in binary form (binary, binary-jdk). */
export const BODY_INSTALL = nodeScript('body-install');
/** upgrade-binary. */
export const BODY_UPGRADE = nodeScript('body-upgrade');
/** docker and upgrade-docker. */
export const BODY_DOCKER = nodeScript('body-docker');
/** uninstall. */
export const BODY_UNINSTALL = nodeScript('body-uninstall');

const INSTALL_MAIN = nodeScript('main-install');

/** The `main` of each kind. */
export const MAIN: Record<
  'binary' | 'binary-jdk' | 'docker' | 'uninstall' | 'upgrade-binary' | 'upgrade-docker',
  string
> = {
  binary: INSTALL_MAIN,
  'binary-jdk': INSTALL_MAIN,
  docker: nodeScript('main-docker'),
  uninstall: nodeScript('main-uninstall'),
  'upgrade-binary': nodeScript('main-upgrade-binary'),
  'upgrade-docker': nodeScript('main-upgrade-docker'),
};
