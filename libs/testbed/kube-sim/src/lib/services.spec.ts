/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return -- tests read API JSON loosely */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { apiCall } from '#testbed/testing';
import { KubeSim } from './kube-sim.js';

let sim: KubeSim;
const call = (...args: Parameters<typeof apiCall> extends [string, ...infer R] ? R : never) =>
  apiCall(sim.url, ...args);
const base = '/api/v1/namespaces/default/services';

const svc = (name: string, spec: Record<string, unknown>) => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name },
  spec: { ports: [{ name: 'http', port: 80 }], ...spec },
});

beforeAll(async () => {
  sim = await KubeSim.start({ serviceCidr: '10.96.0.0/29' });
});
afterAll(async () => sim.stop());
beforeEach(async () => sim.reset());

describe('Service cluster IPs and node ports', () => {
  it('allocates a free cluster IP in the range, None for headless, none for ExternalName', async () => {
    const ips: string[] = [];
    // A /29 has 6 usable addresses.
    for (let i = 0; i < 6; i++) {
      const r = await call('POST', base, svc(`s${i}`, {}));
      expect(r.code).toBe(201);
      expect(r.body.spec.clusterIPs).toEqual([r.body.spec.clusterIP]);
      ips.push(String(r.body.spec.clusterIP));
    }
    expect([...ips].sort()).toEqual([1, 2, 3, 4, 5, 6].map((n) => `10.96.0.${n}`));
    const full = await call('POST', base, svc('s6', {}));
    expect(full.code).toBe(422);
    expect(full.body.message).toContain('range is full');
    expect((await call('DELETE', `${base}/s3`)).code).toBe(200);
    expect((await call('POST', base, svc('s6', {}))).body.spec.clusterIP).toBe(ips[3]);
    const headless = await call('POST', base, svc('h', { clusterIP: 'None' }));
    expect(headless.body.spec).toMatchObject({ clusterIP: 'None', clusterIPs: ['None'] });
    const ext = await call('POST', base, {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'ext' },
      spec: { type: 'ExternalName', externalName: 'example.com' },
    });
    expect(ext.code).toBe(201);
    expect(ext.body.spec.clusterIP).toBeUndefined();
  });

  it('refuses a taken or out-of-range cluster IP and keeps the IP immutable', async () => {
    const a = await call('POST', base, svc('a', { clusterIP: '10.96.0.2' }));
    expect(a.body.spec.clusterIP).toBe('10.96.0.2');
    const taken = await call('POST', base, svc('b', { clusterIP: '10.96.0.2' }));
    expect(taken.code).toBe(422);
    expect(taken.body.reason).toBe('Invalid');
    expect(taken.body.details.causes[0]).toMatchObject({
      field: 'spec.clusterIPs',
      message: expect.stringContaining('provided IP is already allocated'),
    });
    const out = await call('POST', base, svc('b', { clusterIP: '10.0.0.1' }));
    expect(out.body.message).toContain('The range of valid IPs is 10.96.0.0/29');
    // A PUT without the IP keeps it; a PUT with another one is refused.
    const put = await call('PUT', `${base}/a`, svc('a', { selector: { app: 'x' } }));
    expect(put.code).toBe(200);
    expect(put.body.spec.clusterIP).toBe('10.96.0.2');
    const moved = await call('PUT', `${base}/a`, svc('a', { clusterIP: '10.96.0.3' }));
    expect(moved.code).toBe(422);
    expect(moved.body.details.causes[0]).toMatchObject({
      field: 'spec.clusterIPs[0]',
      message: 'Invalid value: "10.96.0.3": may not change once set',
    });
    const noneForNodePort = await call(
      'POST',
      base,
      svc('n', { type: 'NodePort', clusterIP: 'None' }),
    );
    expect(noneForNodePort.code).toBe(422);
    expect(noneForNodePort.body.message).toContain(
      "may not be set to 'None' for NodePort services",
    );
  });

  it('allocates node ports in 30000-32767 for NodePort and LoadBalancer, refusing conflicts', async () => {
    const np = await call(
      'POST',
      base,
      svc('np', {
        type: 'NodePort',
        ports: [
          { name: 'http', port: 80 },
          { name: 'https', port: 443, nodePort: 30443 },
        ],
      }),
    );
    expect(np.code).toBe(201);
    const [http, https] = np.body.spec.ports;
    expect(http.nodePort).toBeGreaterThanOrEqual(30000);
    expect(http.nodePort).toBeLessThanOrEqual(32767);
    expect(https.nodePort).toBe(30443);
    const lb = await call('POST', base, svc('lb', { type: 'LoadBalancer' }));
    expect(lb.body.spec.ports[0].nodePort).toBeGreaterThanOrEqual(30000);
    expect(lb.body.spec.allocateLoadBalancerNodePorts).toBe(true);
    const clash = await call(
      'POST',
      base,
      svc('clash', { type: 'NodePort', ports: [{ port: 80, nodePort: 30443 }] }),
    );
    expect(clash.code).toBe(422);
    expect(clash.body.details.causes).toEqual([
      {
        reason: 'FieldValueInvalid',
        field: 'spec.ports[0].nodePort',
        message: 'Invalid value: 30443: provided port is already allocated',
      },
    ]);
    const low = await call(
      'POST',
      base,
      svc('low', { type: 'NodePort', ports: [{ port: 80, nodePort: 8080 }] }),
    );
    expect(low.body.message).toBe(
      'Service "low" is invalid: spec.ports[0].nodePort: Invalid value: 8080: provided port is not in the valid range. The range of valid ports is 30000-32767',
    );
    const onClusterIP = await call(
      'POST',
      base,
      svc('c', { ports: [{ port: 80, nodePort: 30001 }] }),
    );
    expect(onClusterIP.code).toBe(422);
    // An update that leaves the node ports out keeps them (kubectl apply does this).
    const upd = await call(
      'PUT',
      `${base}/np`,
      svc('np', {
        type: 'NodePort',
        ports: [
          { name: 'http', port: 80 },
          { name: 'https', port: 443 },
        ],
      }),
    );
    expect(upd.body.spec.ports.map((p: any) => p.nodePort)).toEqual([http.nodePort, 30443]);
    // Back to ClusterIP: the node ports go, and are free for another Service.
    const back = await call(
      'PATCH',
      `${base}/np`,
      { spec: { type: 'ClusterIP' } },
      'application/merge-patch+json',
    );
    expect(back.code).toBe(200);
    expect(back.body.spec.ports.every((p: any) => p.nodePort === undefined)).toBe(true);
    const reuse = await call(
      'POST',
      base,
      svc('reuse', { type: 'NodePort', ports: [{ port: 80, nodePort: 30443 }] }),
    );
    expect(reuse.code).toBe(201);
  });
});
