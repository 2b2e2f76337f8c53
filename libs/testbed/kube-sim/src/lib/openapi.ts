import { createHash } from 'node:crypto';
import type { Registry } from './registry.js';
import type { ResourceType } from './resource-type.js';

function gvPath(group: string, version: string): string {
  return group ? `apis/${group}/${version}` : `api/${version}`;
}

function schemaName(t: ResourceType): string {
  const g = t.group ? t.group.split('.').reverse().join('.') : 'io.k8s.api.core';
  return `${g}.${t.version}.${t.kind}`;
}

/** The OpenAPI v3 document of one group/version: a patch operation per kind and its schema. */
export function openApiDocument(registry: Registry, group: string, version: string): unknown {
  const types = registry.resources(group, version);
  if (types.length === 0) return undefined;
  const paths: Record<string, unknown> = {};
  const schemas: Record<string, unknown> = {};
  for (const t of types) {
    const gvk = { group: t.group, version: t.version, kind: t.kind };
    const base = `/${gvPath(group, version)}${t.namespaced ? '/namespaces/{namespace}' : ''}/${t.plural}/{name}`;
    const ref = { $ref: `#/components/schemas/${schemaName(t)}` };
    const params = ['dryRun', 'fieldManager', 'fieldValidation', 'force'].map((name) => ({
      name,
      in: 'query',
      schema: { type: 'string', uniqueItems: true },
    }));
    const op = (action: string) => ({
      operationId: `${action}${t.kind}`,
      'x-kubernetes-action': action,
      'x-kubernetes-group-version-kind': gvk,
      parameters: params,
      responses: { '200': { content: { 'application/json': { schema: ref } } } },
    });
    paths[base] = {
      get: op('get'),
      put: op('put'),
      patch: {
        ...op('patch'),
        requestBody: {
          content: { 'application/merge-patch+json': { schema: { type: 'object' } } },
        },
      },
    };
    schemas[schemaName(t)] = {
      ...(t.schema ?? { type: 'object', 'x-kubernetes-preserve-unknown-fields': true }),
      'x-kubernetes-group-version-kind': [gvk],
    };
  }
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes (kube-sim)', version: 'v1.32.0' },
    paths,
    components: { schemas },
  };
}

/** GET /openapi/v3: every group/version with the URL of its document. */
export function openApiIndex(registry: Registry): unknown {
  const paths: Record<string, unknown> = {};
  for (const g of registry.groups()) {
    for (const v of g.versions) {
      const doc = JSON.stringify(openApiDocument(registry, g.name, v));
      const hash = createHash('sha256').update(doc).digest('hex').slice(0, 32).toUpperCase();
      paths[gvPath(g.name, v)] = {
        serverRelativeURL: `/openapi/v3/${gvPath(g.name, v)}?hash=${hash}`,
      };
    }
  }
  return { paths };
}

function protoField(field: number, payload: Buffer): Buffer {
  // Length-delimited protobuf field (wire type 2); lengths here stay below 128 bytes.
  return Buffer.concat([Buffer.from([(field << 3) | 2, payload.length]), payload]);
}

/**
 * GET /openapi/v2: a minimal, valid gnostic OpenAPI v2 Document in protobuf (swagger "2.0", info,
 * no definitions). kubectl diff/replace insist on downloading it; with no definitions kubectl
 * skips client-side schema validation and builds patches from its compiled-in types.
 */
export function openApiV2Protobuf(): Buffer {
  const info = Buffer.concat([
    protoField(1, Buffer.from('Kubernetes (kube-sim)')),
    protoField(6, Buffer.from('v1.32.0')),
  ]);
  return Buffer.concat([protoField(1, Buffer.from('2.0')), protoField(2, info)]);
}
