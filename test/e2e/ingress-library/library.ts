import { spawn } from 'node:child_process';
import { mkdtemp, readFile, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, stringify } from 'yaml';

/** The repository root (tests run the real `haptic` command and the assembler from it). */
export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

export interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a Node script of the repository (bounded by `timeoutMs`). */
export function runNode(args: readonly string[], timeoutMs = 120_000): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...args], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout, stderr });
    });
  });
}

/** `haptic <args>` through bin/haptic.js (needs `npm run build`). */
export function haptic(args: readonly string[], timeoutMs?: number): Promise<Run> {
  return runNode(['bin/haptic.js', ...args], timeoutMs);
}

type Resource = { spec: Record<string, unknown> } & Record<string, unknown>;

/**
 * Assembles the Ingress library (or another of helm/haptic/libraries/) with the real assembler
 * into `dir`, optionally changing the resource first (extraContext values, storage dirs), and
 * returns the file's path.
 */
export async function assembleLibrary(
  dir: string,
  change: (resource: Resource) => void = () => undefined,
  library = 'ingress',
): Promise<string> {
  const out = join(dir, `${library}-library.yaml`);
  const run = await runNode([
    'scripts/assemble-library.mjs',
    '--library',
    join(ROOT, 'helm/haptic/libraries', library),
    '--out',
    out,
    '--check',
  ]);
  if (run.code !== 0) throw new Error(`assemble-library failed (${run.code}): ${run.stderr}`);
  const resource = parse(await readFile(out, 'utf8')) as Resource;
  change(resource);
  await writeFile(out, stringify(resource, { lineWidth: 0, blockQuote: 'literal' }));
  return out;
}

/** Writes Kubernetes objects as one multi-document manifest in a fresh folder. */
export async function writeManifests(base: string, objects: readonly object[]): Promise<string> {
  const dir = await mkdtemp(join(base, 'resources-'));
  const text = objects.map((o) => stringify(o, { lineWidth: 0 })).join('---\n');
  await writeFile(join(dir, 'resources.yaml'), text);
  return dir;
}

/** `haptic render -f config --resources dir -o <fresh folder>`; returns every file by relative path. */
export async function renderTree(
  base: string,
  config: string,
  resources: string,
  into?: string,
): Promise<Map<string, string>> {
  const out = into ?? (await mkdtemp(join(base, 'render-')));
  const run = await haptic(['render', '-f', config, '--resources', resources, '-o', out]);
  if (run.code !== 0)
    throw new Error(`haptic render failed (${run.code}): ${run.stderr}${run.stdout}`);
  return readTree(out);
}

async function readTree(dir: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    files.set(relative(dir, path), await readFile(path, 'utf8'));
  }
  return new Map([...files.entries()].sort(([a], [b]) => (a < b ? -1 : 1)));
}

/** Relative paths whose content differs between two trees (or exist in only one). */
export function changedFiles(
  a: ReadonlyMap<string, string>,
  b: ReadonlyMap<string, string>,
): string[] {
  const names = new Set([...a.keys(), ...b.keys()]);
  return [...names].filter((n) => a.get(n) !== b.get(n)).sort();
}

/** A fresh temporary base folder for one suite. */
export function tempBase(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'haptic-ingress-lib-'));
}

/**
 * The haproxy.cfg `library` (assembled without its tests) renders over `objects`, with `extra`
 * merged into its extraContext and its maps, certificates and files in a tree under `base`:
 * the start the traffic specs share before a real HAProxy runs it.
 */
export async function renderLibraryConfig(
  base: string,
  library: string,
  extra: Record<string, unknown>,
  objects: readonly object[],
): Promise<string> {
  const out = await mkdtemp(join(base, 'tree-'));
  const config = await assembleLibrary(
    await mkdtemp(join(base, 'cfg-')),
    (r) => {
      const context = (r.spec['templatingSettings'] as { extraContext: Record<string, unknown> })
        .extraContext;
      Object.assign(context, extra);
      r.spec['dataplane'] = {
        mapsDir: join(out, 'maps'),
        sslCertsDir: join(out, 'ssl'),
        generalStorageDir: join(out, 'files'),
      };
    },
    library,
  );
  const tree = await renderTree(base, config, await writeManifests(base, objects), out);
  return tree.get('haproxy.cfg') ?? '';
}

/** The `echo` Service (port 8080) in `namespace` and its EndpointSlice: one ready 127.0.0.1 at `port`. */
export function echoBackend(namespace: string, port: number): object[] {
  return [
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'echo', namespace },
      spec: { ports: [{ name: 'http', port: 8080 }] },
    },
    {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { name: 'echo-1', namespace, labels: { 'kubernetes.io/service-name': 'echo' } },
      addressType: 'IPv4',
      ports: [{ name: 'http', port }],
      endpoints: [{ addresses: ['127.0.0.1'], conditions: { ready: true } }],
    },
  ];
}
