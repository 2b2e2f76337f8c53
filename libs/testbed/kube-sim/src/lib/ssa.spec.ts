/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return -- tests read API JSON loosely */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { apiCall } from '#testbed/testing';
import { KubeSim } from './kube-sim.js';

let sim: KubeSim;
const APPLY = 'application/apply-patch+yaml';
const base = '/apis/apps/v1/namespaces/default/deployments';

const apply = (manager: string, body: unknown, extra = '', path = `${base}/web`) =>
  apiCall(sim.url, 'PATCH', `${path}?fieldManager=${manager}${extra}`, body, APPLY);

const deploy = (spec: Record<string, unknown>, labels: Record<string, string> = {}) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', labels },
  spec: {
    selector: { matchLabels: { app: 'web' } },
    template: {
      metadata: { labels: { app: 'web' } },
      spec: { containers: [{ name: 'web', image: 'nginx:1' }] },
    },
    ...spec,
  },
});

const managers = (o: any) =>
  (o.metadata.managedFields as any[]).map(
    (e) => `${e.manager}/${e.operation}${e.subresource ? `/${e.subresource}` : ''}`,
  );

beforeAll(async () => {
  sim = await KubeSim.start();
});
afterAll(async () => sim.stop());
beforeEach(async () => sim.reset());

describe('server-side apply', () => {
  it('creates on apply and records the manager’s fields as FieldsV1 with operation Apply', async () => {
    const r = await apply('helm', deploy({}, { tier: 'front' }));
    expect(r.code).toBe(201);
    const mf = r.body.metadata.managedFields;
    expect(mf).toHaveLength(1);
    expect(mf[0]).toMatchObject({
      manager: 'helm',
      operation: 'Apply',
      apiVersion: 'apps/v1',
      fieldsType: 'FieldsV1',
    });
    const f = mf[0].fieldsV1;
    expect(f['f:metadata']['f:labels']['f:tier']).toEqual({});
    expect(f['f:spec']['f:template']['f:spec']['f:containers']['k:{"name":"web"}']).toEqual({
      '.': {},
      'f:name': {},
      'f:image': {},
    });
    expect(f['f:spec']['f:replicas']).toBeUndefined(); // defaulted, not applied
    expect(r.body.spec.replicas).toBe(1);
    expect((await apply('helm', deploy({}, { tier: 'front' }))).code).toBe(200);
  });

  it('requires fieldManager and refuses managedFields in the applied configuration', async () => {
    const r = await apiCall(sim.url, 'PATCH', `${base}/web`, deploy({}), APPLY);
    expect(r.code).toBe(422);
    expect(r.body.message).toContain('fieldManager: Required value');
  });

  it('records ordinary writes as Update by the fieldManager (default: the User-Agent’s first word)', async () => {
    await apply('helm', deploy({ replicas: 2 }));
    const r = await apiCall(
      sim.url,
      'PATCH',
      `${base}/web?fieldManager=kubectl-edit`,
      { spec: { replicas: 5 }, metadata: { labels: { extra: 'x' } } },
      'application/merge-patch+json',
    );
    expect(r.code).toBe(200);
    expect(managers(r.body)).toEqual(['helm/Apply', 'kubectl-edit/Update']);
    const edit = r.body.metadata.managedFields[1].fieldsV1;
    expect(edit['f:spec']).toEqual({ 'f:replicas': {} });
    // replicas moved from helm to kubectl-edit
    expect(r.body.metadata.managedFields[0].fieldsV1['f:spec']['f:replicas']).toBeUndefined();
    const created = await apiCall(sim.url, 'POST', '/api/v1/namespaces/default/configmaps', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c' },
      data: { a: '1' },
    });
    expect(created.body.metadata.managedFields[0]).toMatchObject({
      manager: 'node',
      operation: 'Update',
    });
  });

  it('takes managedFields a client rewrites itself as sent', async () => {
    const created = await apply('helm', deploy({ replicas: 2 }));
    const mf = created.body.metadata.managedFields.map((e: any) => ({ ...e, manager: 'renamed' }));
    const r = await apiCall(
      sim.url,
      'PATCH',
      `${base}/web`,
      [{ op: 'replace', path: '/metadata/managedFields', value: mf }],
      'application/json-patch+json',
    );
    expect(r.code).toBe(200);
    expect(managers(r.body)).toEqual(['renamed/Apply']);
  });

  it('409 Conflict names the fields and managers; force takes them over', async () => {
    await apply('helm', deploy({ replicas: 2 }));
    const c = await apply('other', deploy({ replicas: 3 }, { tier: 'x' }));
    expect(c.code).toBe(409);
    expect(c.body.reason).toBe('Conflict');
    expect(c.body.message).toBe(
      'Apply failed with 1 conflict: conflict with "helm" using apps/v1: .spec.replicas',
    );
    expect(c.body.details.causes).toEqual([
      {
        reason: 'FieldManagerConflict',
        message: 'conflict with "helm" using apps/v1',
        field: '.spec.replicas',
      },
    ]);
    // the same value is shared, not a conflict
    expect((await apply('other', deploy({ replicas: 2 }))).code).toBe(200);
    const f = await apply('other', deploy({ replicas: 3 }), '&force=true');
    expect(f.code).toBe(200);
    expect(f.body.spec.replicas).toBe(3);
    const [helm, other] = f.body.metadata.managedFields;
    expect(helm.manager).toBe('helm');
    expect(helm.fieldsV1['f:spec']['f:replicas']).toBeUndefined();
    expect(other.fieldsV1['f:spec']['f:replicas']).toEqual({});
  });

  it('removes a field the manager stops applying; fields of other managers stay', async () => {
    await apply('helm', deploy({ replicas: 2 }, { tier: 'front', keep: 'me' }));
    await apiCall(
      sim.url,
      'PATCH',
      `${base}/web?fieldManager=kubectl`,
      { metadata: { annotations: { note: 'by-kubectl' } } },
      'application/merge-patch+json',
    );
    const r = await apply('helm', {
      ...deploy({}, { keep: 'me' }),
    });
    expect(r.code).toBe(200);
    expect(r.body.metadata.labels).toEqual({ keep: 'me' });
    expect(r.body.metadata.annotations).toEqual({ note: 'by-kubectl' });
    // replicas was helm's only: gone from the applied config, so it is removed and defaulted again
    expect(r.body.spec.replicas).toBe(1);
    // a container dropped from the list goes, the other stays
    const two = deploy({});
    (two.spec.template as any).spec.containers.push({ name: 'side', image: 'busybox' });
    expect((await apply('helm', two)).body.spec.template.spec.containers).toHaveLength(2);
    const one = await apply('helm', deploy({}));
    expect(one.body.spec.template.spec.containers.map((c: any) => c.name)).toEqual(['web']);
    // the last env var dropped: the emptied list goes too
    const env = deploy({});
    (env.spec.template as any).spec.containers[0].env = [{ name: 'A', value: '1' }];
    expect((await apply('helm', env)).body.spec.template.spec.containers[0].env).toHaveLength(1);
    expect((await apply('helm', deploy({}))).body.spec.template.spec.containers[0]).toEqual({
      name: 'web',
      image: 'nginx:1',
    });
  });

  it('keeps a field another manager took over when the applier stops declaring it', async () => {
    await apply('helm', deploy({ replicas: 2 }));
    await apiCall(
      sim.url,
      'PATCH',
      `${base}/web?fieldManager=kubectl`,
      { spec: { replicas: 7 } },
      'application/merge-patch+json',
    );
    const r = await apply('helm', deploy({}));
    expect(r.body.spec.replicas).toBe(7);
  });

  it('applies the status subresource apart from the main resource', async () => {
    await apply('helm', deploy({}));
    const s = await apply(
      'ctrl',
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'web' },
        status: { replicas: 1, readyReplicas: 1 },
      },
      '',
      `${base}/web/status`,
    );
    expect(s.code).toBe(200);
    expect(s.body.status).toMatchObject({ replicas: 1, readyReplicas: 1 });
    expect(managers(s.body)).toEqual(['helm/Apply', 'ctrl/Apply/status']);
    // status in an apply to the main resource is ignored
    const m = await apply('helm', { ...deploy({}), status: { replicas: 9 } });
    expect(m.body.status.replicas).toBe(1);
    const gone = await apply(
      'ctrl',
      { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'nope' }, status: {} },
      '',
      `${base}/nope/status`,
    );
    expect(gone.code).toBe(404);
  });

  it('applies to custom resources, merging lists by x-kubernetes-list-map-keys', async () => {
    await sim.apply({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.example.com' },
      spec: {
        group: 'example.com',
        scope: 'Namespaced',
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: {
                type: 'object',
                properties: {
                  spec: {
                    type: 'object',
                    properties: {
                      ports: {
                        type: 'array',
                        'x-kubernetes-list-type': 'map',
                        'x-kubernetes-list-map-keys': ['name'],
                        items: {
                          type: 'object',
                          required: ['name'],
                          properties: { name: { type: 'string' }, port: { type: 'integer' } },
                        },
                      },
                    },
                  },
                },
              },
            },
          },
        ],
      },
    });
    const path = '/apis/example.com/v1/namespaces/default/widgets/w';
    const w = (ports: unknown[]) => ({
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w' },
      spec: { ports },
    });
    expect((await apply('a', w([{ name: 'http', port: 80 }]), '', path)).code).toBe(201);
    const r = await apply('b', w([{ name: 'https', port: 443 }]), '', path);
    expect(r.body.spec.ports).toEqual([
      { name: 'https', port: 443 },
      { name: 'http', port: 80 },
    ]);
    expect((await apply('b', w([{ name: 'http', port: 81 }]), '', path)).code).toBe(409);
  });
});
