import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { templateConfigCrd } from '#core';
import { KubeApiError, KubeTransportError, type KubeApi } from '#watch';
import {
  checkTemplateConfigCrd,
  crdProblem,
  missingFields,
  TEMPLATE_CONFIG_CRD,
} from './crd-check.js';
import { StartupConfigError } from './kube-config.js';

const repoFile = (rel: string) =>
  parse(readFileSync(new URL(`../../../../${rel}`, import.meta.url), 'utf8')) as unknown;

type Node = Record<string | number, unknown>;

/** The object at `path` under `o`. */
const at = (o: unknown, ...path: (string | number)[]): Node =>
  path.reduce<unknown>((n, k) => (n as Node)[k], o) as Node;

/** The generated CRD's first version, changed by `edit` in a deep copy. */
const edited = (edit: (version: Node) => void): unknown => {
  const crd = structuredClone(templateConfigCrd());
  edit(at(crd, 'spec', 'versions', 0));
  return crd;
};

/** A KubeApi whose `get` answers (or fails) as given. */
const api = (get: () => Promise<unknown>): Pick<KubeApi, 'get' | 'server'> => ({
  server: 'https://api.example:6443',
  get: get as KubeApi['get'],
});

describe('crdProblem', () => {
  it('accepts the CRD the chart ships and the schema-less test CRD', () => {
    expect(crdProblem(templateConfigCrd())).toBeUndefined();
    expect(crdProblem(repoFile('helm/haptic/crds/haproxytemplateconfigs.yaml'))).toBeUndefined();
    expect(crdProblem(repoFile('test/fixtures/crds/haproxytemplateconfigs.yaml'))).toBeUndefined();
  });

  it('names the versions found when the one this haptic reads is absent or not served', () => {
    const older = edited((v) => (v['name'] = 'v1alpha0'));
    expect(crdProblem(older)).toBe(
      `the installed CustomResourceDefinition ${TEMPLATE_CONFIG_CRD} does not serve version ` +
        'v1alpha1 that this haptic reads (found: v1alpha0)',
    );
    const unserved = edited((v) => (v['served'] = false));
    expect(crdProblem(unserved)).toContain('(found: v1alpha1 (not served))');
    expect(crdProblem({ spec: {} })).toContain('(found: no versions)');
  });

  it('names the fields an older schema lacks (the API server would prune them)', () => {
    const older = edited((v) => {
      const spec = at(v, 'schema', 'openAPIV3Schema', 'properties', 'spec', 'properties');
      delete spec['podSelector'];
      delete at(spec, 'haproxyConfig', 'properties')['template'];
    });
    const problem = crdProblem(older);
    expect(problem).toContain('its schema lacks 2 field(s) this version reads');
    expect(problem).toContain('spec.podSelector');
    expect(problem).toContain('spec.haproxyConfig.template');
  });
});

describe('missingFields', () => {
  it('walks properties, items and additionalProperties, stopping at preserved unknown fields', () => {
    const wanted = {
      properties: {
        a: { items: { properties: { x: {}, y: {} } } },
        m: { additionalProperties: { properties: { z: {} } } },
        p: { properties: { q: {} } },
      },
    };
    const installed = {
      properties: {
        a: { items: { properties: { x: {} } } },
        m: { additionalProperties: { properties: {} } },
        p: { 'x-kubernetes-preserve-unknown-fields': true },
      },
    };
    expect(missingFields(wanted, installed)).toEqual(['a[].y', 'm.*.z']);
  });
});

describe('checkTemplateConfigCrd', () => {
  it('passes a current CRD and lets an absent one through to /readyz', async () => {
    expect(await checkTemplateConfigCrd(api(() => Promise.resolve(templateConfigCrd())))).toBe(
      'ok',
    );
    expect(await checkTemplateConfigCrd(api(() => Promise.resolve(undefined)))).toBe('absent');
  });

  it('refuses a stale CRD with StartupConfigError naming the CRD, the server and the fix', async () => {
    const stale = edited((v) => (v['name'] = 'v1alpha0'));
    const error = await checkTemplateConfigCrd(api(() => Promise.resolve(stale))).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(StartupConfigError);
    const message = (error as Error).message;
    expect(message).toContain('API server https://api.example:6443');
    expect(message).toContain(TEMPLATE_CONFIG_CRD);
    expect(message).toContain('found: v1alpha0');
    expect(message).toContain('kubectl apply --server-side -f crds/');
  });

  it('does not stop the start when the CRD cannot be read (forbidden, server down, refused URL)', async () => {
    const path = `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${TEMPLATE_CONFIG_CRD}`;
    const forbidden = new KubeApiError(403, 'Forbidden', 'no', path);
    expect(await checkTemplateConfigCrd(api(() => Promise.reject(forbidden)))).toMatch(
      /^unchecked: .*403/,
    );
    const down = new KubeTransportError(path, 'connect ECONNREFUSED');
    expect(await checkTemplateConfigCrd(api(() => Promise.reject(down)))).toMatch(
      /^unchecked: .*ECONNREFUSED/,
    );
    const refused = new Error('HTTP protocol is not allowed when skipTLSVerify is not set');
    expect(await checkTemplateConfigCrd(api(() => Promise.reject(refused)))).toBe(
      `unchecked: ${refused.message}`,
    );
  });
});
