// The implementation of `haptic migrate`, loaded only when the command runs.
import { readFile } from 'node:fs/promises';
import { parseAllDocuments } from 'yaml';
import { kubeRequest, seg } from '#core';
import {
  MigrateInputError,
  formatMigrationReport,
  ingressesOf,
  migrationReport,
  type IngressInput,
} from '#render';
import { ExitCode } from '../cli-io.js';
import type { CliContext } from '../command.js';
import { StartupConfigError, processKubeConfig } from '../../run/kube-config.js';

export interface MigrateFlags {
  readonly from: string;
  readonly file?: string[];
  readonly kubeconfig?: string;
  readonly allNamespaces?: boolean;
  readonly namespace?: string;
  readonly output: string;
}

/** The first problem of the flags, or undefined. */
function flagProblem(flags: MigrateFlags): string | undefined {
  if (flags.from !== 'ingress-nginx')
    return `--from must be ingress-nginx (the only controller haptic migrates from), not ${flags.from}`;
  if (flags.output !== 'text' && flags.output !== 'json')
    return `--output must be text or json, not ${flags.output}`;
  const files = flags.file?.length ?? 0;
  if (files > 0 === (flags.kubeconfig !== undefined))
    return 'give either -f FILE (repeatable) or --kubeconfig FILE';
  if (flags.kubeconfig === undefined && (flags.allNamespaces || flags.namespace !== undefined))
    return '-A and -n need --kubeconfig';
  if (flags.allNamespaces && flags.namespace !== undefined) return 'give -A or -n, not both';
  return undefined;
}

/** The Ingresses of every file (YAML, multi-document YAML or JSON). */
async function fromFiles(files: readonly string[]): Promise<IngressInput[]> {
  const out: IngressInput[] = [];
  for (const file of files) {
    const docs = parseAllDocuments(await readFile(file, 'utf8'));
    const docList = Array.isArray(docs) ? docs : [docs];
    const bad = docList.find((d) => d.errors.length > 0);
    if (bad) throw new MigrateInputError(`${file}: ${bad.errors[0]?.message ?? 'invalid YAML'}`);
    out.push(
      ...ingressesOf(
        docList.map((d) => d.toJS() as unknown),
        file,
      ),
    );
  }
  return out;
}

interface IngressList {
  readonly items?: IngressInput[];
  readonly metadata?: { readonly continue?: string };
}

/** The Ingresses of a cluster (one namespace or all), page by page. */
async function fromCluster(flags: MigrateFlags): Promise<IngressInput[]> {
  const kc = processKubeConfig(flags.kubeconfig);
  const ns = flags.namespace ?? kc.getContextObject(kc.getCurrentContext())?.namespace ?? 'default';
  const base = flags.allNamespaces
    ? '/apis/networking.k8s.io/v1/ingresses'
    : `/apis/networking.k8s.io/v1/namespaces/${seg(ns)}/ingresses`;
  const out: IngressInput[] = [];
  let token = '';
  do {
    const query = `?limit=500${token ? `&continue=${encodeURIComponent(token)}` : ''}`;
    const list = await kubeRequest<IngressList>(kc, { method: 'GET', path: base + query });
    // a List's items carry no kind; they are Ingresses by the path asked
    out.push(...(list.items ?? []).map((i) => ({ ...i, kind: 'Ingress' })));
    token = list.metadata?.continue ?? '';
  } while (token);
  return out;
}

/** Runs the command; resolves to its exit code (MigrateExit, or 1/2 for failure/bad input). */
export async function migrate(flags: MigrateFlags, { io }: CliContext): Promise<number> {
  const problem = flagProblem(flags);
  if (problem) {
    io.err(`haptic migrate: ${problem}`);
    return ExitCode.invalidInput;
  }
  let ingresses: IngressInput[];
  try {
    ingresses = flags.file?.length ? await fromFiles(flags.file) : await fromCluster(flags);
  } catch (e) {
    io.err(`haptic migrate: ${(e as Error).message}`);
    const bad =
      e instanceof MigrateInputError ||
      e instanceof StartupConfigError ||
      (e as NodeJS.ErrnoException).code === 'ENOENT';
    return bad ? ExitCode.invalidInput : ExitCode.failure;
  }
  const report = migrationReport(ingresses);
  io.out(
    flags.output === 'json'
      ? JSON.stringify({ from: flags.from, ...report })
      : formatMigrationReport(report),
  );
  return report.exitCode;
}
