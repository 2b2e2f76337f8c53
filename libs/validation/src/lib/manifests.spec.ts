import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseTemplateConfigText } from '#core';
import { afterAll, describe, expect, it } from 'vitest';
import { assignToWatched, loadManifests, pluralOf } from './manifests.js';

const dir = mkdtempSync(join(tmpdir(), 'haptic-manifests-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('manifests', () => {
  it('plurals kinds as Kubernetes does', () => {
    expect(
      ['Ingress', 'EndpointSlice', 'Endpoints', 'GatewayClass', 'HTTPRoute', 'Policy'].map(
        pluralOf,
      ),
    ).toEqual([
      'ingresses',
      'endpointslices',
      'endpoints',
      'gatewayclasses',
      'httproutes',
      'policies',
    ]);
  });

  it('reads files and folders, multi-document YAML, JSON and Lists; sorts them to watched resources', async () => {
    mkdirSync(join(dir, 'sub'));
    writeFileSync(
      join(dir, 'a.yaml'),
      'apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: { name: a, namespace: x, managedFields: [1] }\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: { name: c }\n',
    );
    writeFileSync(
      join(dir, 'sub', 'b.json'),
      JSON.stringify({
        kind: 'List',
        items: [
          {
            apiVersion: 'discovery.k8s.io/v1',
            kind: 'EndpointSlice',
            metadata: { name: 's', labels: { keep: 'yes' } },
          },
          { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: 'drop' } },
        ],
      }),
    );
    writeFileSync(join(dir, 'sub', 'notes.txt'), 'ignored');
    const objects = await loadManifests([dir]);
    expect(objects).toHaveLength(4);
    const parsed = parseTemplateConfigText(`
credentialsSecretRef: { name: c }
podSelector: { matchLabels: { app: haproxy } }
watchedResources:
  ingresses: { apiVersion: networking.k8s.io/v1, resources: ingresses, indexBy: [metadata.name] }
  slices: { apiVersion: discovery.k8s.io/v1, resources: endpointslices, indexBy: [metadata.name], labelSelector: keep=yes }
haproxyConfig: { template: x }`);
    if (!parsed.ok) throw new Error('config');
    const { fixtures, unmatched } = assignToWatched(objects, parsed.config.spec);
    expect(fixtures['ingresses']).toEqual([
      {
        apiVersion: 'networking.k8s.io/v1',
        kind: 'Ingress',
        metadata: { name: 'a', namespace: 'x' },
      },
    ]);
    expect(
      (fixtures['slices'] ?? []).map((o) => (o as { metadata: { name: string } }).metadata.name),
    ).toEqual(['s']);
    expect(unmatched).toHaveLength(2);
  });

  it('reads a YAML flow mapping that starts like JSON, and a broken JSON file as YAML would', async () => {
    writeFileSync(
      join(dir, 'flow.yaml'),
      '{ apiVersion: v1, kind: ConfigMap, metadata: { name: f } }\n',
    );
    expect(await loadManifests([join(dir, 'flow.yaml')])).toEqual([
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'f' } },
    ]);
    writeFileSync(join(dir, 'broken.json'), '{"kind": "List", "items": [}');
    await expect(loadManifests([join(dir, 'broken.json')])).rejects.toThrow(
      /broken\.json: document 1: not valid YAML/,
    );
  });

  it('names the file that is not YAML', async () => {
    writeFileSync(join(dir, 'bad.yml'), 'a: [1,\n');
    await expect(loadManifests([join(dir, 'bad.yml')])).rejects.toThrow(
      /bad\.yml: document 1: not valid YAML/,
    );
    await expect(loadManifests([join(dir, 'missing')])).rejects.toThrow(/cannot read/);
  });
});
