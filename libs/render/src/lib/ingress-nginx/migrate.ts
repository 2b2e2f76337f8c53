// `haptic migrate --from ingress-nginx`: what haptic does with each ingress-nginx annotation of
// each Ingress, by the catalogue. The command reads files or a cluster; this judges and formats.
import { judgeAnnotation, type AnnotationVerdict, type Verdict } from './catalogue.js';
import { NGINX_PREFIX } from './catalogue-types.js';

/** The verdicts in report order (totals, text and JSON). */
export const VERDICTS: readonly Verdict[] = [
  'honoured',
  'deviation',
  'refused',
  'not-yet-honoured',
  'unknown',
];

/**
 * Exit codes of `haptic migrate` beyond the shared ones (0 ok, 1 failure, 2 bad input):
 * 3 when every annotation is honoured but some with a deviation, 4 when any is refused, not yet
 * honoured or unknown.
 */
export const MigrateExit = { ok: 0, deviations: 3, notHonoured: 4 } as const;

/** How one annotation is judged (the catalogue's judgeAnnotation). */
export type Judge = (key: string, value: string) => AnnotationVerdict;

/** One Ingress as migrate reads it. */
export interface IngressInput {
  readonly metadata?: {
    readonly name?: unknown;
    readonly namespace?: unknown;
    readonly annotations?: unknown;
  };
  readonly spec?: { readonly ingressClassName?: unknown };
}

export interface IngressVerdicts {
  readonly namespace: string;
  readonly name: string;
  /** spec.ingressClassName, else the kubernetes.io/ingress.class annotation, else "". */
  readonly ingressClass: string;
  readonly annotations: readonly AnnotationVerdict[];
}

export interface MigrationReport {
  readonly ingresses: readonly IngressVerdicts[];
  readonly totals: Readonly<Record<Verdict, number>>;
  readonly exitCode: number;
}

/** Input that is not an Ingress list: names the document and the field. */
export class MigrateInputError extends Error {}

function text(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/** The Ingresses of parsed YAML/JSON documents: Ingress objects and (Ingress)Lists of them. */
export function ingressesOf(docs: readonly unknown[], source: string): IngressInput[] {
  const out: IngressInput[] = [];
  docs.forEach((doc, i) => {
    if (doc === null || doc === undefined) return;
    const where = `${source} document ${i + 1}`;
    if (typeof doc !== 'object' || Array.isArray(doc))
      throw new MigrateInputError(`${where}: not a Kubernetes object`);
    const o = doc as { kind?: unknown; items?: unknown };
    if (typeof o.kind === 'string' && o.kind.endsWith('List')) {
      if (!Array.isArray(o.items)) throw new MigrateInputError(`${where}: ${o.kind} has no items`);
      o.items.forEach((item, j) => {
        if (isIngress(item, `${where} items[${j}]`)) out.push(item as IngressInput);
      });
    } else if (isIngress(doc, where)) out.push(doc);
  });
  return out;
}

/** True for an Ingress (other kinds are skipped); throws for an Ingress without a name. */
function isIngress(item: unknown, where: string): boolean {
  const o = item as { kind?: unknown; metadata?: { name?: unknown } } | null;
  if (o?.kind !== 'Ingress') return false;
  if (typeof o.metadata?.name !== 'string' || o.metadata.name === '')
    throw new MigrateInputError(`${where}: Ingress has no metadata.name`);
  return true;
}

function verdictsOf(ing: IngressInput, judge: Judge): IngressVerdicts {
  const md = ing.metadata ?? {};
  const annotations =
    md.annotations && typeof md.annotations === 'object'
      ? (md.annotations as Record<string, unknown>)
      : {};
  const keys = Object.keys(annotations)
    .filter((k) => k.startsWith(NGINX_PREFIX))
    .sort();
  return {
    namespace: text(md.namespace) || 'default',
    name: text(md.name),
    ingressClass:
      text(ing.spec?.ingressClassName) || text(annotations['kubernetes.io/ingress.class']),
    annotations: keys.map((k) => withoutCanary(judge(k, text(annotations[k])), annotations)),
  };
}

const CANARY_RULE = `${NGINX_PREFIX}canary-`;

/** A canary rule on an Ingress that is not a canary: no effect there, in ingress-nginx too. */
function withoutCanary(
  v: AnnotationVerdict,
  annotations: Record<string, unknown>,
): AnnotationVerdict {
  const canary = /^(1|t|T|TRUE|true|True)$/.test(text(annotations[`${NGINX_PREFIX}canary`]).trim());
  if (canary || !v.annotation.startsWith(CANARY_RULE) || v.verdict !== 'honoured') return v;
  return {
    ...v,
    detail: 'without effect: the Ingress is not a canary (canary: "true"), as in ingress-nginx',
  };
}

/** Judges every ingress-nginx annotation of every Ingress; sorted by namespace and name. */
export function migrationReport(
  ingresses: readonly IngressInput[],
  judge: Judge = judgeAnnotation,
): MigrationReport {
  const reports = ingresses
    .map((i) => verdictsOf(i, judge))
    .sort((a, b) => a.namespace.localeCompare(b.namespace) || a.name.localeCompare(b.name));
  const totals = Object.fromEntries(VERDICTS.map((v) => [v, 0])) as Record<Verdict, number>;
  for (const r of reports) for (const a of r.annotations) totals[a.verdict] += 1;
  const notHonoured = totals.refused + totals['not-yet-honoured'] + totals.unknown;
  const exitCode =
    notHonoured > 0
      ? MigrateExit.notHonoured
      : totals.deviation > 0
        ? MigrateExit.deviations
        : MigrateExit.ok;
  return { ingresses: reports, totals, exitCode };
}

/** The report as text: per Ingress its annotations, then the totals. */
export function formatMigrationReport(report: MigrationReport): string {
  const lines: string[] = [];
  const width = Math.max(...VERDICTS.map((v) => v.length));
  for (const ing of report.ingresses) {
    const cls = ing.ingressClass ? ` (class ${ing.ingressClass})` : '';
    if (ing.annotations.length === 0) {
      lines.push(`${ing.namespace}/${ing.name}${cls}: no ingress-nginx annotations`);
      continue;
    }
    lines.push(`${ing.namespace}/${ing.name}${cls}`);
    for (const a of ing.annotations)
      lines.push(`  ${a.verdict.padEnd(width)}  ${a.annotation}${a.detail ? `: ${a.detail}` : ''}`);
  }
  const count = report.ingresses.reduce((n, i) => n + i.annotations.length, 0);
  const parts = VERDICTS.map((v) => `${report.totals[v]} ${v}`).join(', ');
  lines.push(
    `Totals: ${report.ingresses.length} Ingress${report.ingresses.length === 1 ? '' : 'es'}, ${count} annotation${count === 1 ? '' : 's'}: ${parts}`,
  );
  return lines.join('\n');
}
