import { describe, expect, it } from 'vitest';
import type { RuntimeChange } from '#haproxy-config';
import type { DataplaneClient } from './client.js';
import type { SyncPlan } from './sync-plan.js';
import { applyRuntime } from './sync-runtime.js';

const plan = (servers: RuntimeChange[], maps: SyncPlan['maps'] = []): SyncPlan => ({
  servers,
  maps,
  certs: [],
  crtListAdds: [],
  crtListDels: [],
  certDeletes: [],
  reload: [],
  writes: [],
  deletes: [],
  configChanged: true,
});

const set = (server: string, address: string): RuntimeChange => ({
  kind: 'server.set',
  backend: 'be',
  server,
  address,
});

/** A pod whose every request takes a turn of the event loop; records order and concurrency. */
function slowPod(fail?: string) {
  const log: string[] = [];
  let inFlight = 0;
  let most = 0;
  const client = {
    send: async (method: string, path: string, o?: { json?: unknown }) => {
      inFlight++;
      most = Math.max(most, inFlight);
      await new Promise((r) => setTimeout(r, 5));
      inFlight--;
      const address = (o?.json as { address?: string } | undefined)?.address;
      log.push(`${method} ${path}${address ? ` ${address}` : ''}`);
      if (fail && path.endsWith(fail)) throw new Error(`refused ${fail}`);
      return undefined;
    },
  } as unknown as DataplaneClient;
  return { client, log, most: () => most };
}

describe('applyRuntime: servers', () => {
  it('sends the server operations of an endpoint change side by side, the maps after them', async () => {
    const pod = slowPod();
    const servers = ['s1', 's2', 's3', 's4', 's5', 's6'].map((s, i) => set(s, `10.0.0.${i + 1}`));
    await applyRuntime(pod.client, plan(servers, [{ name: 'hosts.map', entries: [] }]));
    expect(pod.most()).toBe(6);
    expect(pod.log).toHaveLength(7);
    expect(pod.log.at(-1)).toBe('PUT runtime/maps/hosts.map');
  });

  it("keeps one server's operations in their order, and at most 8 requests in flight", async () => {
    const pod = slowPod();
    const servers = Array.from({ length: 12 }, (_, i) => set(`s${i}`, `10.0.1.${i}`));
    servers.splice(1, 0, set('s0', '10.0.2.1'), {
      kind: 'server.del',
      backend: 'be',
      server: 's0',
    });
    await applyRuntime(pod.client, plan(servers));
    expect(pod.most()).toBe(8);
    const s0 = pod.log.filter((l) => l.includes('/servers/s0'));
    expect(s0).toEqual([
      'PUT runtime/backends/be/servers/s0 10.0.1.0',
      'PUT runtime/backends/be/servers/s0 10.0.2.1',
      'DELETE runtime/backends/be/servers/s0',
    ]);
  });

  it('throws a refused server operation once the others have ended, sending no map', async () => {
    const pod = slowPod('/s2');
    const servers = ['s1', 's2', 's3'].map((s, i) => set(s, `10.0.0.${i + 1}`));
    await expect(
      applyRuntime(pod.client, plan(servers, [{ name: 'hosts.map', entries: [] }])),
    ).rejects.toThrow('refused /s2');
    expect(pod.log).toHaveLength(3);
  });
});
