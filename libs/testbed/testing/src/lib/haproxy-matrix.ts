import { availableMajors, HAPROXY_BIN_ENV, type HaproxyInstall } from '#haproxy-bin';
import { afterAll, beforeAll, describe, it } from 'vitest';

/** Environment variable narrowing the matrix, e.g. `HAPTIC_HAPROXY_MAJORS=3.0` (comma-separated). */
export const HAPROXY_MAJORS_ENV = 'HAPTIC_HAPROXY_MAJORS';

/** The suite-title tag the per-major reporter groups results by: `[haproxy 3.0]`. */
export function majorTag(major: string): string {
  return `[haproxy ${major}]`;
}

let installs: HaproxyInstall[] | undefined;

/** Branches present on this machine, probed once per test worker. */
function installed(): HaproxyInstall[] {
  installs ??= availableMajors();
  return installs;
}

function selectedMajors(env: NodeJS.ProcessEnv): string[] | undefined {
  const value = env[HAPROXY_MAJORS_ENV]?.trim();
  return value ? value.split(',').map((m) => m.trim()) : undefined;
}

function missingMessage(major: string, env: NodeJS.ProcessEnv): string {
  const found = installed().map((i) => `${i.branch} (${i.bin})`);
  const fix =
    major === '3.0' || major === '2.6'
      ? 'run `bash scripts/setup.sh` (`npm test` runs it first)'
      : `install HAProxy ${major} or point HAPTIC_HAPROXY_BIN at it`;
  const narrow =
    env['CI'] === 'true' ? '' : `, or narrow the matrix with ${HAPROXY_MAJORS_ENV}=<majors>`;
  return `HAProxy ${major} is required by this suite but not installed (found: ${found.join(', ') || 'none'}): ${fix}${narrow}`;
}

/**
 * Points the one switch (HAPTIC_HAPROXY_BIN) at `bin` while the enclosing suite runs, so helpers
 * and code that resolve the binary themselves use this major. Registered before the body's hooks:
 * set before its beforeAll, restored after its afterAll.
 */
function selectBinaryDuringSuite(bin: string): void {
  let previous: string | undefined;
  beforeAll(() => {
    previous = process.env[HAPROXY_BIN_ENV];
    process.env[HAPROXY_BIN_ENV] = bin;
  });
  afterAll(() => {
    if (previous === undefined) delete process.env[HAPROXY_BIN_ENV];
    else process.env[HAPROXY_BIN_ENV] = previous;
  });
}

/** The marker the reporter finds in the title of a suite left out by HAPTIC_HAPROXY_MAJORS. */
export const LEFT_OUT_MARKER = `(left out by ${HAPROXY_MAJORS_ENV})`;

/** Stands in for a major that is left out and not installed: its suite is declared, never run. */
function notRunInstall(major: string): HaproxyInstall {
  const [maj = 0, min = 0] = major.split('.').map(Number);
  return {
    branch: major,
    bin: '',
    version: { major: maj, minor: min, patch: 0, branch: major, text: `${major} (not run)` },
  };
}

/**
 * Declares a major's suite as skipped, so its tests count as skipped and the reporter names it.
 * The body is declared (not run: no hook or test of a skipped suite runs) to count its tests.
 */
function leftOut(major: string, title: string, body: (haproxy: HaproxyInstall) => void): void {
  const install = installed().find((i) => i.branch === major) ?? notRunInstall(major);
  // skip-reason: the run narrows the matrix on purpose with HAPTIC_HAPROXY_MAJORS
  describe.skip(`${majorTag(major)} ${title} ${LEFT_OUT_MARKER}`, () => body(install));
}

/**
 * Declares `body` once per HAProxy major (`'2.6'`, `'3.0'`), each inside a suite titled
 * `[haproxy X.Y] <title>`, handed that major's binary, with HAPTIC_HAPROXY_BIN set to it while
 * the suite runs. A requested major whose binary is missing is a failing test, never a skip.
 * `HAPTIC_HAPROXY_MAJORS` narrows the list explicitly; the suites it leaves out are declared
 * skipped (counted and listed, never silently dropped).
 */
export function describeForMajors(
  majors: readonly string[],
  title: string,
  body: (haproxy: HaproxyInstall) => void,
  env: NodeJS.ProcessEnv = process.env,
): void {
  const selected = selectedMajors(env);
  for (const major of majors) {
    if (selected && !selected.includes(major)) {
      leftOut(major, title, body);
      continue;
    }
    const install = installed().find((i) => i.branch === major);
    describe(`${majorTag(major)} ${title}`, () => {
      if (install) {
        selectBinaryDuringSuite(install.bin);
        body(install);
      } else
        it(`has the HAProxy ${major} binary`, () => {
          throw new Error(missingMessage(major, env));
        });
    });
  }
}
