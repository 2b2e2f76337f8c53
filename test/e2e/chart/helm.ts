// Runs the pinned helm (scripts/tools.mjs extracts it) on the chart and parses what it renders.
import { execFileSync, spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';

export const root = fileURLToPath(new URL('../../../', import.meta.url));
export const chartDir = join(root, 'helm/haptic');

let helmBin: string | undefined;

/** The pinned helm binary (extracted into .tools/bin on first use). */
export function helm(): string {
  helmBin ??= join(
    execFileSync(process.execPath, [join(root, 'scripts/tools.mjs')], { encoding: 'utf8' }).trim(),
    'helm',
  );
  return helmBin;
}

/** The pinned kubectl (next to the pinned helm). */
export function kubectl(): string {
  return join(dirname(helm()), 'kubectl');
}

export interface HelmResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** `helm <args>`, never throwing: tests look at the exit code and output. */
export function runHelm(args: readonly string[]): HelmResult {
  const r = spawnSync(helm(), args, {
    encoding: 'utf8',
    env: {
      ...process.env,
      HELM_CACHE_HOME: join(root, '.cache/helm'),
      HELM_CONFIG_HOME: join(root, '.cache/helm'),
    },
    maxBuffer: 64 * 1024 * 1024,
  });
  return { code: r.status ?? 1, stdout: r.stdout, stderr: r.stderr };
}

/** A rendered Kubernetes object (loosely typed: tests assert on its fields). */
export type Manifest = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; [k: string]: any }; // eslint-disable-line @typescript-eslint/no-explicit-any -- untyped YAML
  [k: string]: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- untyped YAML
};

/** Flattens `--set` style values into helm arguments. */
function setArgs(values: Readonly<Record<string, string | number | boolean>>): string[] {
  return Object.entries(values).flatMap(([k, v]) => ['--set', `${k}=${String(v)}`]);
}

/** The password template() passes when a test sets no credentials value. */
export const TEST_PASSWORD = 'chart-test-password';

/** helm's output per argument list: a file renders each value set once (helm starts slowly). */
const rendered = new Map<string, string>();

/** `helm template` of the chart (parsed anew on each call); throws with helm's message when it fails. */
export function template(
  values: Readonly<Record<string, string | number | boolean>> = {},
  { release = 'edge', namespace = 'haptic', extra = [] as readonly string[] } = {},
): Manifest[] {
  // A password unless the test names the credentials: with no cluster to read one from, the chart
  // refuses to render a new random one (credentials.spec.ts tests that).
  const credentials = Object.keys(values).some((k) => k.startsWith('credentials.'))
    ? {}
    : { 'credentials.password': TEST_PASSWORD };
  const args = [
    'template',
    release,
    chartDir,
    '-n',
    namespace,
    ...setArgs({ ...credentials, ...values }),
    ...extra,
  ];
  const key = JSON.stringify(args);
  let stdout = rendered.get(key);
  if (stdout === undefined) {
    const r = runHelm(args);
    if (r.code !== 0) throw new Error(`helm template failed: ${r.stderr}`);
    stdout = r.stdout;
    rendered.set(key, stdout);
  }
  return parseAllDocuments(stdout)
    .map((d) => d.toJS() as Manifest | null)
    .filter((m): m is Manifest => m !== null);
}

/** The one object of a kind and name (throws when missing or ambiguous). */
export function find(manifests: readonly Manifest[], kind: string, name: string): Manifest {
  const found = manifests.filter((m) => m.kind === kind && m.metadata.name === name);
  if (found.length !== 1) throw new Error(`expected one ${kind} ${name}, found ${found.length}`);
  return found[0]!;
}
