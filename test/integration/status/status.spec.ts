import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_BUS } from '#bus';
import type { HapticBus } from '#events';
import type { KubeObject, KubeSim } from '#testbed/kube-sim';
import { ingressObject } from '#testbed/testing';
import type { RunningController } from '../../../apps/controller/src/run/controller-app.js';
import {
  NS,
  startController,
  startKubectlBed,
  statusTestConfig,
  until,
  type KubectlBed,
} from './support.js';

// The status the leader writes, seen as an operator sees it: the real kubectl against kube-sim
// (`describe haptpl`, `get ingress`, `describe ingress`), with the shipped CRD (printer columns,
// status subresource) and the controller running in process.
const NODE_IP = '192.0.2.10';

const config = (
  status: object,
  template = '{% for i in ingress.served %}# {{ i.metadata.name }}\n{% endfor %}',
): KubeObject =>
  statusTestConfig({
    template,
    controllerName: 'haproxy-haptic.org/ingress-controller',
    status,
  });

const ingress = (name: string, cls: string, host = `${name}.example`): KubeObject =>
  ingressObject({ name, cls, host });

describe('status written back (kubectl against kube-sim)', () => {
  let bed: KubectlBed;
  let sim: KubeSim;
  let controller: RunningController;
  const k = (...args: string[]): Promise<string> => bed.k(...args);
  const describeConfig = () => k('describe', 'haptpl', '-n', NS, 'haptic');
  const statusPatch = (path: string, status: object) =>
    fetch(`${sim.url}${path}/status`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/merge-patch+json' },
      body: JSON.stringify({ status }),
    });

  beforeAll(async () => {
    bed = await startKubectlBed('haptic-status-');
    sim = bed.sim;
    await sim.apply([
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } },
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'apps' } },
      { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-a' } },
      {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { namespace: NS, name: 'haproxy' },
        spec: { type: 'NodePort', selector: { app: 'haproxy' }, ports: [{ port: 80 }] },
      },
      {
        apiVersion: 'networking.k8s.io/v1',
        kind: 'IngressClass',
        metadata: { name: 'haptic' },
        spec: { controller: 'haproxy-haptic.org/ingress-controller' },
      },
      ingress('ours', 'haptic'),
      ingress('theirs', 'other'),
      config({ publishService: `${NS}/haproxy` }),
    ]);
    const node = await statusPatch('/api/v1/nodes/node-a', {
      addresses: [{ type: 'InternalIP', address: NODE_IP }],
    });
    expect(node.status).toBe(200);
    controller = await startController(sim, 'status-test');
  }, 120_000);

  afterAll(async () => {
    await controller?.stop();
    await bed?.stop();
  });

  it('writes the conditions of a valid config; kubectl get/describe haptpl show them', async () => {
    // Valid and Deployed may land in different status passes: wait for both
    await until('Valid=True and Deployed', async () => {
      const d = await describeConfig();
      return /Type:\s+Valid[\s\S]*?Status:\s+True/.test(d) && /Reason:\s+NoPods/.test(d);
    });
    const described = await describeConfig();
    process.stdout.write(`--- kubectl describe haptpl (valid)\n${described}\n`);
    expect(described).toMatch(/Reason:\s+Accepted/);
    expect(described).toMatch(/Type:\s+Rendered/);
    expect(described).toMatch(/Observed Generation:\s+1/);
    // no HAProxy pod in this test: Deployed tells so, and Ready follows it
    expect(described).toMatch(/Reason:\s+NoPods/);
    const row = await k('get', 'haptpl', '-n', NS);
    process.stdout.write(`--- kubectl get haptpl\n${row}\n`);
    expect(row).toMatch(/^haptic\s+True\s+False\s+False\s+[0-9a-f]{64}/m);
  });

  it("publishes the NodePort Service's Node address to the served Ingress only", async () => {
    await until('the address on apps/ours', async () =>
      (await k('get', 'ingress', '-n', 'apps', 'ours')).includes(NODE_IP),
    );
    const table = await k('get', 'ingress', '-n', 'apps');
    process.stdout.write(`--- kubectl get ingress\n${table}\n`);
    expect(table).toMatch(
      new RegExp(`^ours\\s+haptic\\s+ours\\.example\\s+${NODE_IP.replace(/\./g, '\\.')}\\s`, 'm'),
    );
    expect(table).toMatch(/^theirs\s+other\s+theirs\.example\s+80\s/m);
  });

  it("status writes (its own and a third party's) never trigger a render; a spec change does", async () => {
    const metric = async (name: string, labels: string): Promise<number> => {
      const text = await (await fetch(`http://127.0.0.1:${controller.metricsPort}/metrics`)).text();
      const line = text.split('\n').find((l) => l.startsWith(`${name}{${labels}}`));
      return Number(line?.split(' ').pop() ?? 0);
    };
    // Every trigger counts once: as a cycle, or folded into one (coalesced). A render a status
    // write caused shows here even when it rode along with another change.
    const triggers = async () =>
      (await metric('haptic_reconcile_total', 'result="triggered"')) +
      (await metric('haptic_reconcile_total', 'result="coalesced"'));
    const ingressWrites = () => metric('haptic_status_writes_total', 'kind="ingress",result="ok"');
    const configWrites = () => metric('haptic_status_writes_total', 'kind="config",result="ok"');
    const hashOf = async () => /Last Render Hash:\s+(\S+)/.exec(await describeConfig())?.[1] ?? '';
    // A positive marker instead of a pause: a new Ingress of another class (nothing to serve, no
    // status to write) is one trigger; once a cycle ran after its change reached the reconciler,
    // every watch event before it has been handled and any trigger it caused has been counted.
    const facts: string[] = [];
    const bus = controller.app.get<HapticBus>(EVENT_BUS, { strict: false });
    const offs = [
      bus.subscribe(
        'resource.changed',
        (e) => void facts.push(`changed ${e.payload.object?.name}`),
      ),
      bus.subscribe('reconcile.triggered', () => void facts.push('cycle')),
    ];
    let markers = 0;
    const marked = async () => {
      const name = `marker-${++markers}`;
      await sim.apply({ ...ingress(name, 'other'), metadata: { namespace: NS, name } });
      const what = () =>
        `a cycle after ${name} reached the reconciler; the last facts: ${facts.slice(-8).join(', ')}`;
      await until(what, () => {
        const at = facts.indexOf(`changed ${name}`);
        return Promise.resolve(at >= 0 && facts.indexOf('cycle', at) > at);
      });
    };
    try {
      await until('the address on apps/ours', async () =>
        (await k('get', 'ingress', '-n', 'apps', 'ours')).includes(NODE_IP),
      );
      await marked();
      const before = {
        triggers: await triggers(),
        ingress: await ingressWrites(),
        config: await configWrites(),
      };
      // A spec change: one render, then the leader writes the new Ingress's address and the
      // config's new render hash — neither may cause a render of its own.
      const hash = await hashOf();
      await sim.apply(ingress('counted', 'haptic'));
      await until('the address on apps/counted', async () =>
        (await k('get', 'ingress', '-n', 'apps', 'counted')).includes(NODE_IP),
      );
      await until('the new render hash in status', async () => (await hashOf()) !== hash);
      await marked();
      expect(await ingressWrites()).toBeGreaterThan(before.ingress);
      expect(await configWrites()).toBeGreaterThan(before.config);
      // the spec change and the marker, nothing else
      expect(await triggers()).toBe(before.triggers + 2);
      // A third party writes the status of an Ingress of another class, and of the config.
      expect(
        (
          await statusPatch('/apis/networking.k8s.io/v1/namespaces/apps/ingresses/theirs', {
            loadBalancer: { ingress: [{ ip: '198.51.100.7' }] },
          })
        ).status,
      ).toBe(200);
      await until('the foreign address', async () =>
        (await k('get', 'ingress', '-n', 'apps', 'theirs')).includes('198.51.100.7'),
      );
      await marked();
      expect(await triggers()).toBe(before.triggers + 3);
      // A spec change after them still renders, exactly once.
      await sim.apply(ingress('counted', 'haptic', 'counted-2.example'));
      // (its own fact first: a marker in the same turn would fold into one unnamed change)
      await until(
        'the trigger of the new host',
        async () => (await triggers()) > before.triggers + 3,
      );
      await marked();
      expect(await triggers()).toBe(before.triggers + 5);
    } finally {
      for (const off of offs) off();
      for (let n = 1; n <= markers; n++)
        await fetch(`${sim.url}/apis/networking.k8s.io/v1/namespaces/${NS}/ingresses/marker-${n}`, {
          method: 'DELETE',
        });
    }
  });

  it('clears the address of an Ingress it no longer serves', async () => {
    await sim.apply(ingress('ours', 'other'));
    await until(
      'the address cleared',
      async () => !(await k('get', 'ingress', '-n', 'apps', 'ours')).includes(NODE_IP),
    );
    await sim.apply(ingress('ours', 'haptic'));
    await until('the address back', async () =>
      (await k('get', 'ingress', '-n', 'apps', 'ours')).includes(NODE_IP),
    );
  });

  it('records a quarantined Ingress as an Event on it, counted up instead of repeated', async () => {
    // Valid to the API server (a subdomain's labels are not length-checked there), refused by the
    // library's hostname filter (a label of at most 63 characters).
    await sim.apply(ingress('bad', 'haptic', `${'a'.repeat(64)}.example`));
    const describeBad = () => k('describe', 'ingress', '-n', 'apps', 'bad');
    await until('a Quarantined event', async () =>
      /Warning\s+Quarantined/.test(await describeBad()),
    );
    // another render (a new Ingress) quarantines it again: the same Event, its count raised
    await sim.apply(ingress('other-ours', 'haptic'));
    await until('the count raised', async () => /\(x[2-9]\d* over/.test(await describeBad()));
    const described = await describeBad();
    process.stdout.write(`--- kubectl describe ingress bad\n${described}\n`);
    const events = await k(
      'get',
      'events',
      '-n',
      'apps',
      '--field-selector',
      'involvedObject.name=bad',
      '-o',
      'name',
    );
    expect(events.trim().split('\n')).toHaveLength(1);
    expect(await k('get', 'ingress', '-n', 'apps', 'bad')).not.toContain(NODE_IP);
  });

  it('after an invalid config: Valid=False naming the field, an Event, and the old one keeps serving', async () => {
    await sim.apply(config({ publishService: 'no-slash' }));
    await until('Valid=False', async () => /Reason:\s+InvalidSpec/.test(await describeConfig()));
    const described = await describeConfig();
    process.stdout.write(`--- kubectl describe haptpl (invalid)\n${described}\n`);
    expect(described).toMatch(/Observed Generation:\s+2/);
    expect(described).toMatch(/spec\.controller\.status\.publishService: must be namespace\/name/);
    expect(described).toMatch(/Warning\s+InvalidConfig/);
    // the last good config stays in force: the served Ingress keeps its address
    expect(await k('get', 'ingress', '-n', 'apps', 'ours')).toContain(NODE_IP);
    await sim.apply(config({ publishService: `${NS}/haproxy` }));
    await until('Valid=True again', async () => /Reason:\s+Accepted/.test(await describeConfig()));
  });
});
