import { templateConfigCrd } from '#core';
import type { KubeApi } from '#watch';
import { StartupConfigError } from './kube-config.js';

/** The CRD this controller's config lives in. */
export const TEMPLATE_CONFIG_CRD = 'haproxytemplateconfigs.haproxy-haptic.org';

const CRD_TYPE = { apiVersion: 'apiextensions.k8s.io/v1', plural: 'customresourcedefinitions' };

/** What an operator runs to bring the CRD up to date (helm never upgrades `crds/`). */
export const CRD_UPGRADE_HINT =
  'apply the CRD of this haptic version before starting it: ' +
  '`kubectl apply --server-side -f crds/` from the chart (helm install and helm upgrade never ' +
  'update crds/; see the chart README, "Upgrading the CRD")';

/** A JSON Schema node as a CRD's openAPIV3Schema nests them (only what the walk reads). */
interface SchemaNode {
  readonly properties?: Record<string, SchemaNode>;
  readonly items?: SchemaNode;
  readonly additionalProperties?: SchemaNode | boolean;
  readonly 'x-kubernetes-preserve-unknown-fields'?: boolean;
}

interface CrdVersion {
  readonly name?: string;
  readonly served?: boolean;
  readonly schema?: { readonly openAPIV3Schema?: SchemaNode };
}

const versionsOf = (crd: unknown): CrdVersion[] => {
  const vs = (crd as { spec?: { versions?: unknown } } | undefined)?.spec?.versions;
  return Array.isArray(vs) ? (vs as CrdVersion[]) : [];
};

/**
 * The property paths `wanted` declares that `installed` does not: an API server prunes those
 * fields from every object it stores, so the controller would silently read them as unset.
 */
export function missingFields(wanted: SchemaNode, installed: SchemaNode, at = ''): string[] {
  if (installed['x-kubernetes-preserve-unknown-fields'] === true) return [];
  const missing: string[] = [];
  for (const [name, sub] of Object.entries(wanted.properties ?? {})) {
    const there = installed.properties?.[name];
    const path = at ? `${at}.${name}` : name;
    if (!there) missing.push(path);
    else missing.push(...missingFields(sub, there, path));
  }
  if (wanted.items && installed.items)
    missing.push(...missingFields(wanted.items, installed.items, `${at}[]`));
  const [wa, ia] = [wanted.additionalProperties, installed.additionalProperties];
  if (typeof wa === 'object' && typeof ia === 'object')
    missing.push(...missingFields(wa, ia, `${at}.*`));
  return missing;
}

/**
 * Why the installed HAProxyTemplateConfig CRD cannot carry this controller's config (the version
 * it reads is not served, or its schema lacks fields this version reads), or undefined when it can.
 */
export function crdProblem(
  installed: unknown,
  wanted: unknown = templateConfigCrd(),
): string | undefined {
  const want = versionsOf(wanted).find((v) => v.served)!;
  const versions = versionsOf(installed);
  const found = versions.map((v) => `${v.name ?? '?'}${v.served ? '' : ' (not served)'}`);
  const have = versions.find((v) => v.name === want.name && v.served === true);
  if (!have)
    return (
      `the installed CustomResourceDefinition ${TEMPLATE_CONFIG_CRD} does not serve version ` +
      `${want.name ?? '?'} that this haptic reads (found: ${found.join(', ') || 'no versions'})`
    );
  const missing = missingFields(
    want.schema?.openAPIV3Schema ?? {},
    have.schema?.openAPIV3Schema ?? {},
  );
  if (missing.length === 0) return undefined;
  const shown = missing.slice(0, 8).join(', ') + (missing.length > 8 ? ', …' : '');
  return (
    `the installed CustomResourceDefinition ${TEMPLATE_CONFIG_CRD} (version ${want.name ?? '?'}) ` +
    `is older than this haptic: its schema lacks ${missing.length} field(s) this version reads ` +
    `(${shown}), which the API server would drop from every HAProxyTemplateConfig`
  );
}

/** How the start-up check ended when it did not refuse (for the log). */
export type CrdCheckOutcome = 'ok' | 'absent' | `unchecked: ${string}`;

/**
 * Reads the installed HAProxyTemplateConfig CRD and throws StartupConfigError (exit 2) when it
 * cannot carry this version's config. A CRD that is absent, or that the controller may not read,
 * or an API server that does not answer yet, does not stop the start: /readyz names those.
 */
export async function checkTemplateConfigCrd(
  api: Pick<KubeApi, 'get' | 'server'>,
): Promise<CrdCheckOutcome> {
  let installed;
  try {
    installed = await api.get(CRD_TYPE, undefined, TEMPLATE_CONFIG_CRD);
  } catch (e) {
    // whatever stops the read (403, a server down, client-node refusing plain HTTP) also stops
    // the watch, which retries and names it in /readyz
    return `unchecked: ${e instanceof Error ? e.message : String(e)}`;
  }
  if (!installed) return 'absent';
  const problem = crdProblem(installed);
  if (problem)
    throw new StartupConfigError(
      `API server ${api.server ?? ''}: ${problem}; ${CRD_UPGRADE_HINT}`,
      {
        details: { crd: TEMPLATE_CONFIG_CRD },
      },
    );
  return 'ok';
}
