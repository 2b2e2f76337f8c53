import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import {
  cliCommand,
  describeForMajors,
  freePort,
  startHaproxy,
  type HaproxyUnderTest,
} from '#testbed/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { assembleLibrary, renderTree, tempBase, writeManifests } from './library.js';
import { nonRuntimeDifferences, runtimeCommands } from './server-lines.js';
import { ask, startEcho, type EchoBackend } from './traffic.js';

// An endpoint change, rendered by `haptic render`, applied to a running HAProxy through the
// runtime API only (no reload): the new endpoints serve, the old ones no longer do.

const ns = 'apps';

function objects(pods: readonly EchoBackend[]): object[] {
  return [
    {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'IngressClass',
      metadata: { name: 'haptic' },
      spec: { controller: 'haproxy-haptic.org/ingress-controller' },
    },
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'echo', namespace: ns },
      spec: { ports: [{ name: 'http', port: 8080 }] },
    },
    ...pods.map((p, i) => ({
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: {
        name: `echo-${i}`,
        namespace: ns,
        labels: { 'kubernetes.io/service-name': 'echo' },
      },
      addressType: 'IPv4',
      ports: [{ name: 'http', port: p.port }],
      endpoints: [{ addresses: ['127.0.0.1'], conditions: { ready: true } }],
    })),
    {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'Ingress',
      metadata: { name: 'web', namespace: ns, creationTimestamp: '2024-01-01T00:00:00Z' },
      spec: {
        ingressClassName: 'haptic',
        rules: [
          {
            host: 'web.example.com',
            http: {
              paths: [
                {
                  path: '/',
                  pathType: 'Prefix',
                  backend: { service: { name: 'echo', port: { number: 8080 } } },
                },
              ],
            },
          },
        ],
      },
    },
  ];
}

describeForMajors(['2.6', '3.0'], 'endpoint changes through the runtime API', (install) => {
  let base: string;
  let pods: EchoBackend[] = [];
  let haproxy: HaproxyUnderTest | undefined;
  let http: number;
  let config: string;
  let out: string;

  beforeAll(async () => {
    process.env['POD_IP'] = '127.0.0.1'; // binds stay on loopback
    base = await tempBase();
    pods = await Promise.all([0, 1, 2, 3].map((i) => startEcho('echo', `pod-${i}`)));
    [http] = [await freePort()];
    out = await mkdtemp(join(base, 'tree-'));
    const stats = await freePort();
    config = await assembleLibrary(base, (r) => {
      const extra = (r.spec['templatingSettings'] as { extraContext: Record<string, unknown> })
        .extraContext;
      Object.assign(extra, { http_port: http, stats_port: stats });
      r.spec['dataplane'] = {
        mapsDir: join(out, 'maps'),
        sslCertsDir: join(out, 'ssl'),
        generalStorageDir: join(out, 'files'),
      };
    });
  });

  afterAll(async () => {
    await haproxy?.stop();
    await Promise.all(pods.map((p) => p.close()));
    await rm(base, { recursive: true, force: true });
  });

  const podsSeen = async (n: number): Promise<Set<string>> => {
    const seen = new Set<string>();
    for (let i = 0; i < n; i++) {
      const got = await ask({ port: http, host: 'web.example.com', path: '/' });
      expect(got.status).toBe(200);
      seen.add(got.pod ?? '');
    }
    return seen;
  };

  it('applies the rendered difference with set server commands and traffic follows', async () => {
    const first = await renderTree(
      base,
      config,
      await writeManifests(base, objects(pods.slice(0, 2))),
      out,
    );
    const before = first.get('haproxy.cfg') ?? '';
    haproxy = await startHaproxy({
      bin: install.bin,
      config: ({ adminSocket }) =>
        `${before}\nglobal\n  stats socket ${adminSocket} mode 600 level admin\n`,
    });
    expect(await podsSeen(8)).toEqual(new Set(['pod-0', 'pod-1']));
    const workerBefore = (await haproxy.showProc()).workers.map((w) => w.pid);

    const next = await renderTree(
      base,
      config,
      await writeManifests(base, objects(pods.slice(2, 4))),
    );
    const after = next.get('haproxy.cfg') ?? '';
    expect(nonRuntimeDifferences(before, after)).toEqual([]);
    const commands = runtimeCommands(before, after);
    expect(commands.length).toBeGreaterThan(0);
    for (const command of commands) {
      const reply = await cliCommand(haproxy.adminSocket, command);
      expect(reply, command).not.toMatch(/No such|Invalid|Require|denied|unknown/i);
    }
    expect(await podsSeen(8)).toEqual(new Set(['pod-2', 'pod-3']));
    // The same worker, no reload: the master counts none and no old worker drains.
    const proc = await haproxy.showProc();
    expect(proc.workers.map((w) => w.pid)).toEqual(workerBefore);
    expect(proc.master.reloads).toBe(0);
    expect(proc.oldWorkers).toEqual([]);
  });
});
