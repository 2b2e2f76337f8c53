import { parseAllDocuments } from 'yaml';
import type { FieldProblem } from '../errors.js';
import { deepFreeze, type DeepReadonly } from '../deep-readonly.js';
import { joinPath, materialise } from './materialise.js';
import { TemplateConfigSpec, TemplateConfigStatus } from './spec.js';

export const TEMPLATE_CONFIG_GROUP = 'haproxy-haptic.org';
export const TEMPLATE_CONFIG_VERSION = 'v1alpha1';
export const TEMPLATE_CONFIG_API_VERSION = `${TEMPLATE_CONFIG_GROUP}/${TEMPLATE_CONFIG_VERSION}`;
export const TEMPLATE_CONFIG_KIND = 'HAProxyTemplateConfig';

/** The identity of the resource a spec came from (absent for a bare spec). */
export interface TemplateConfigSource {
  readonly name?: string;
  readonly namespace?: string;
  readonly generation?: number;
  readonly resourceVersion?: string;
}

/** A parsed, validated, deeply readonly HAProxyTemplateConfig. */
export interface TemplateConfig {
  readonly source: TemplateConfigSource;
  readonly spec: DeepReadonly<TemplateConfigSpec>;
}

export type ParseResult =
  | { readonly ok: true; readonly config: TemplateConfig }
  | { readonly ok: false; readonly problems: readonly FieldProblem[] };

const WATCHED_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const TARGET = /^(haproxy\.cfg|(map|file|cert|crt-list):.+)$/;

/** Checks that span fields: names usable in templates, fixtures naming watched resources. */
function crossCheck(spec: TemplateConfigSpec, problems: FieldProblem[]): void {
  const watched = spec.watchedResources ?? {};
  const names = Object.keys(watched);
  if (typeof watched === 'object' && names.length === 0) {
    problems.push({
      path: 'spec.watchedResources',
      reason: 'must name at least one resource type',
    });
  }
  for (const name of names.filter((n) => !WATCHED_NAME.test(n))) {
    problems.push({
      path: joinPath('spec.watchedResources', name),
      reason: 'name must be usable in templates (letters, digits and _; not starting with a digit)',
    });
  }
  for (const [test, body] of Object.entries(spec.validationTests ?? {})) {
    const testPath = joinPath('spec.validationTests', test);
    for (const key of Object.keys(body?.fixtures ?? {}).filter((k) => !names.includes(k))) {
      problems.push({
        path: joinPath(`${testPath}.fixtures`, key),
        reason: 'not a watched resource name',
      });
    }
    (body?.assertions ?? []).forEach((a, i) => {
      if (a && typeof a.target === 'string' && !TARGET.test(a.target)) {
        problems.push({
          path: `${testPath}.assertions[${i}].target`,
          reason: 'must be haproxy.cfg, map:<name>, file:<name>, cert:<name> or crt-list:<name>',
        });
      }
    });
  }
}

function fromResource(
  doc: Record<string, unknown>,
  problems: FieldProblem[],
): { spec: unknown; source: TemplateConfigSource } {
  if (doc['kind'] !== TEMPLATE_CONFIG_KIND) {
    problems.push({ path: 'kind', reason: `must be ${TEMPLATE_CONFIG_KIND}` });
  }
  if (doc['apiVersion'] !== TEMPLATE_CONFIG_API_VERSION) {
    problems.push({ path: 'apiVersion', reason: `must be ${TEMPLATE_CONFIG_API_VERSION}` });
  }
  const meta = (doc['metadata'] ?? {}) as Record<string, unknown>;
  const source: Record<string, unknown> = {};
  for (const k of ['name', 'namespace', 'generation', 'resourceVersion'] as const) {
    if (meta[k] !== undefined) source[k] = meta[k];
  }
  if (doc['spec'] === undefined) problems.push({ path: 'spec', reason: 'is required' });
  return { spec: doc['spec'], source: source };
}

/** Validates a decoded document: a whole custom resource (has `kind`) or a bare spec. */
export function parseTemplateConfig(doc: unknown): ParseResult {
  const problems: FieldProblem[] = [];
  const isObject = doc !== null && typeof doc === 'object' && !Array.isArray(doc);
  const { spec: rawSpec, source } =
    isObject && 'kind' in doc ? fromResource(doc, problems) : { spec: doc, source: {} };
  const spec =
    rawSpec === undefined ? undefined : materialise(TemplateConfigSpec, rawSpec, 'spec', problems);
  if (spec) crossCheck(spec, problems);
  if (problems.length > 0 || !spec) return { ok: false, problems };
  return { ok: true, config: deepFreeze({ source, spec }) };
}

/** Validates a status object as the leader writes it. */
export function parseTemplateConfigStatus(
  doc: unknown,
):
  | { readonly ok: true; readonly status: DeepReadonly<TemplateConfigStatus> }
  | { readonly ok: false; readonly problems: readonly FieldProblem[] } {
  const problems: FieldProblem[] = [];
  const status = materialise(TemplateConfigStatus, doc, 'status', problems);
  return status && problems.length === 0
    ? { ok: true, status: deepFreeze(status) }
    : { ok: false, problems };
}

/** Parses YAML or JSON text holding one HAProxyTemplateConfig (resource or bare spec). */
export function parseTemplateConfigText(text: string): ParseResult {
  const docs = parseAllDocuments(text, { prettyErrors: true });
  const list = Array.isArray(docs) ? docs : [docs];
  for (const d of list) {
    if (d.errors.length > 0) {
      return {
        ok: false,
        problems: d.errors.map((e) => ({
          path: '(document)',
          reason: `not valid YAML or JSON: ${e.message.split('\n')[0] ?? ''}`,
        })),
      };
    }
  }
  const values = list.map((d) => d.toJS() as unknown).filter((v) => v !== null && v !== undefined);
  const configs = values.filter(
    (v) => (v as Record<string, unknown>)['kind'] === TEMPLATE_CONFIG_KIND,
  );
  if (values.length === 0)
    return { ok: false, problems: [{ path: '(document)', reason: 'is empty' }] };
  if (configs.length > 1) {
    return {
      ok: false,
      problems: [
        {
          path: '(document)',
          reason: `holds ${configs.length} ${TEMPLATE_CONFIG_KIND} resources; give one`,
        },
      ],
    };
  }
  return parseTemplateConfig(configs[0] ?? values[0]);
}
