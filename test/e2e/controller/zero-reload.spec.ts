import { X509Certificate } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import { parse } from 'yaml';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RunningEcho } from '#testbed/echo';
import type { KubeObject, KubeSim } from '#testbed/kube-sim';
import { waitFor } from '#testbed/stack';
import { cliCommand, describeForMajors, parseMasterShowProc } from '#testbed/testing';
import type { RunningAgent } from '../../../apps/agent/src/index.js';
import { makeCertificate } from '../haproxy/fixtures.js';
import { runNode } from '../ingress-library/library.js';
import {
  runController,
  serviceWithEndpoint,
  startBed,
  templateConfig,
  type Bed,
} from '../support/bed.js';
import { freePort, getWithHost, type HapticProcess } from './support.js';

// DESIGN.md §6 with the Ingress library and `haptic run`: new hosts on existing Services, endpoint
// changes (past the server slots too), certificate rotations and a controller restart cause no
// HAProxy reload, counted from HAProxy's master (`show proc`); a credential rotation needs no
// restart and the old password is refused. Sizes: small here; `npm run test:zero-reload` runs
// 100 hosts, 1,000 endpoint changes and 100 rotations and prints the delays (never asserted).

const FULL = process.env['ZERO_RELOAD_FULL'] === '1';
const HOSTS = FULL ? 100 : 10;
const ENDPOINT_CHANGES = Number(process.env['ZERO_RELOAD_ENDPOINTS'] ?? (FULL ? 1000 : 100));
const ROTATIONS = FULL ? 100 : 10;
/** The full sizes may take an hour on a slow machine; the small ones have a real budget. */
const BUDGET_MS = FULL || process.env['ZERO_RELOAD_ENDPOINTS'] ? 3_600_000 : 600_000;
/** The churned Service's endpoint count cycles 1..MAX_ENDPOINTS: past the server slots (added at runtime). */
const MAX_ENDPOINTS = 20;

const HAPROXY_IP = '127.0.0.81';
const ECHO_IP = '127.0.0.82';
const NS = 'apps';
const b64 = (s: string) => Buffer.from(s).toString('base64');

const backendRef = (service: string) => ({
  service: { name: service, port: { number: 80 } },
});
const ingress = (name: string, host: string, tls?: string): KubeObject => ({
  apiVersion: 'networking.k8s.io/v1',
  kind: 'Ingress',
  metadata: { namespace: NS, name },
  spec: {
    ingressClassName: 'haptic',
    ...(tls ? { tls: [{ hosts: [host], secretName: tls }] } : {}),
    rules: [
      {
        host,
        http: { paths: [{ path: '/', pathType: 'Prefix', backend: backendRef('web') }] },
      },
    ],
  },
});
const tlsSecret = (name: string, c: { cert: string; key: string }): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { namespace: NS, name },
  type: 'kubernetes.io/tls',
  data: { 'tls.crt': b64(c.cert), 'tls.key': b64(c.key) },
});
/** Endpoint set number `i` of the churned Service: 1..MAX_ENDPOINTS addresses, shifting. */
const churnAddresses = (i: number): string[] => {
  const n = 1 + (i % MAX_ENDPOINTS);
  return Array.from({ length: n }, (_, k) => `10.9.${Math.floor(i / 200)}.${((i + k) % 200) + 1}`);
};
const churnSlice = (i: number): KubeObject => ({
  apiVersion: 'discovery.k8s.io/v1',
  kind: 'EndpointSlice',
  metadata: { namespace: NS, name: 'churn-1', labels: { 'kubernetes.io/service-name': 'churn' } },
  addressType: 'IPv4',
  endpoints: churnAddresses(i).map((a) => ({ addresses: [a], conditions: { ready: true } })),
  ports: [{ name: 'http', port: 8080 }],
});

/** SHA-256 fingerprint of the certificate HAProxy presents for `servername`. */
function servedFingerprint(port: number, servername: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = tlsConnect({ host: HAPROXY_IP, port, servername, rejectUnauthorized: false }, () => {
      const fp = s.getPeerCertificate().fingerprint256;
      s.destroy();
      resolve(fp);
    });
    s.on('error', reject).setTimeout(5000, () => s.destroy(new Error('timeout')));
  });
}
const pemFingerprint = (pem: string) => new X509Certificate(pem).fingerprint256;

/** Median and 99th percentile (nearest rank) of delays in ms. */
function summary(ms: readonly number[]): string {
  const s = [...ms].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)]!;
  return `n=${s.length} median ${at(0.5).toFixed(0)} ms, p99 ${at(0.99).toFixed(0)} ms, max ${s[s.length - 1]!.toFixed(0)} ms`;
}

describeForMajors(['3.0'], 'zero reloads with the Ingress library and haptic run', () => {
  let bed: Bed;
  let sim: KubeSim;
  let agent: RunningAgent;
  let echo: RunningEcho;
  let controller: HapticProcess;
  let dir: string;
  let httpPort: number;
  let httpsPort: number;
  const delays: Record<string, number[]> = { host: [], endpoints: [], certificate: [] };
  const put = (o: KubeObject) => sim.apply(o);
  // the master's socket is closed for a moment while it re-executes on a reload: retried
  const reloads = () =>
    waitFor(
      'HAProxy master to answer show proc',
      async () =>
        parseMasterShowProc(
          await cliCommand(join(agent.configDir, 'run', 'master.sock'), 'show proc'),
        ).master.reloads,
    );
  const serversState = () =>
    cliCommand(join(agent.configDir, 'run', 'admin.sock'), 'show servers state');
  const startController = () =>
    runController({
      kubeconfig: sim.kubeconfigPath,
      identity: 'zero-reload',
      logLevel: process.env['ZERO_RELOAD_LOG'] ?? 'warn',
    });
  const metricsOf = async (c: HapticProcess) => {
    const port = await waitFor('the metrics port', () => {
      const m = /"metricsPort":(\d+)/.exec(c.output());
      return m ? Number(m[1]) : undefined;
    });
    return (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  };
  const served = (host: string) =>
    waitFor(
      `${host} to be served`,
      async () =>
        (await getWithHost(HAPROXY_IP, httpPort, host)).status === 200 ? true : undefined,
      60_000,
    );

  beforeAll(async () => {
    bed = await startBed({
      prefix: 'haptic-zero-reload-',
      agents: [HAPROXY_IP],
      echo: { address: ECHO_IP, context: { namespace: NS } },
      namespaces: [NS],
    });
    ({ sim, echo, dir } = bed);
    agent = bed.agents[0]!;
    const libFile = join(dir, 'lib.yaml');
    const assembled = await runNode([
      'scripts/assemble-library.mjs',
      '--without-tests',
      '--out',
      libFile,
    ]);
    expect(assembled.code).toBe(0);
    const library = parse(readFileSync(libFile, 'utf8')) as { spec: Record<string, unknown> };
    httpPort = await freePort(HAPROXY_IP);
    httpsPort = await freePort(HAPROXY_IP);
    await put({
      apiVersion: 'networking.k8s.io/v1',
      kind: 'IngressClass',
      metadata: { name: 'haptic' },
      spec: { controller: 'haproxy-haptic.org/ingress-controller' },
    });
    const fallback = makeCertificate('default.example');
    await put({
      ...tlsSecret('default-tls', fallback),
      metadata: { namespace: 'haptic', name: 'default-tls' },
    });
    const spec = structuredClone(library.spec) as Record<string, Record<string, unknown>>;
    const settings = spec['templatingSettings']!;
    settings['extraContext'] = {
      ...(settings['extraContext'] as object),
      http_port: httpPort,
      https_port: httpsPort,
      stats_port: await freePort(HAPROXY_IP),
      default_certificate: 'haptic/default-tls',
    };
    await put(templateConfig(agent.port, spec));
    for (const o of serviceWithEndpoint(NS, 'web', ECHO_IP, echo.listeners[0]!.port)) await put(o);
    await put({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { namespace: NS, name: 'churn' },
      spec: { ports: [{ name: 'http', port: 80 }] },
    });
    await put(churnSlice(0));
    await put(tlsSecret('site-tls', makeCertificate('secure.example')));
    await put(ingress('base', 'base.example'));
    await put(ingress('secure', 'secure.example', 'site-tls'));
    // the churned Service needs an Ingress so that its backend exists
    await put({
      ...ingress('churn', 'churn.example'),
      spec: {
        ingressClassName: 'haptic',
        rules: [
          {
            host: 'churn.example',
            http: { paths: [{ path: '/', pathType: 'Prefix', backend: backendRef('churn') }] },
          },
        ],
      },
    });
    controller = startController();
    await served('base.example');
    await waitFor('the controller to settle', async () => {
      const state = await serversState();
      return churnAddresses(0).every((a) => state.includes(` ${a} `)) ? true : undefined;
    });
  }, 180_000);

  afterAll(async () => {
    await bed?.stop([controller]);
  });

  it(
    `serves ${HOSTS} new hosts, ${ENDPOINT_CHANGES} endpoint changes and ${ROTATIONS} certificate rotations without a reload`,
    async () => {
      const before = await reloads();
      for (let i = 0; i < HOSTS; i++) {
        const t0 = performance.now();
        await put(ingress(`h${i}`, `h${i}.example`));
        await served(`h${i}.example`);
        delays['host']!.push(performance.now() - t0);
      }
      for (let i = 1; i <= ENDPOINT_CHANGES; i++) {
        const want = churnAddresses(i);
        const gone = churnAddresses(i - 1).filter((a) => !want.includes(a));
        const t0 = performance.now();
        await put(churnSlice(i));
        await waitFor(
          `endpoint set ${i} in HAProxy`,
          async () => {
            const state = await serversState();
            const has = (a: string) => state.includes(` ${a} `);
            return want.every(has) && !gone.some(has) ? true : undefined;
          },
          60_000,
        );
        delays['endpoints']!.push(performance.now() - t0);
      }
      for (let i = 0; i < ROTATIONS; i++) {
        const c = makeCertificate('secure.example');
        const fp = pemFingerprint(c.cert);
        const t0 = performance.now();
        await put(tlsSecret('site-tls', c));
        await waitFor(
          `rotation ${i} to be served`,
          async () =>
            (await servedFingerprint(httpsPort, 'secure.example')) === fp ? true : undefined,
          60_000,
        );
        delays['certificate']!.push(performance.now() - t0);
      }
      expect(await reloads()).toBe(before);
      const body = await metricsOf(controller);
      expect(body).toMatch(
        /^haptic_runtime_operations_total\{pod="haptic\/haproxy-0",kind="map\.(?:edit|replace)"\} [1-9]/m,
      );
      for (const [kind, ms] of Object.entries(delays))
        console.log(`zero-reload: API write → HAProxy serving, ${kind}: ${summary(ms)}`);
    },
    BUDGET_MS,
  );

  it('restarts the controller without a reload and without a runtime change', async () => {
    const before = await reloads();
    // the servers' state without srv_time_since_last_change (10th field), which counts seconds
    const servers = async () =>
      (await serversState())
        .split('\n')
        .map((l) =>
          l
            .split(' ')
            .filter((_, i) => i !== 9)
            .join(' '),
        )
        .join('\n');
    const stateBefore = await servers();
    controller.child.kill('SIGTERM');
    expect(await controller.exited).toEqual({ code: 0, signal: null });
    controller = startController();
    // the new controller has deployed once it reports a deployment for the pod
    const body = await waitFor(
      'the restarted controller to deploy',
      async () => {
        const m = await metricsOf(controller);
        return /^haptic_deployments_total\{pod="haptic\/haproxy-0",result="\w+"\} [1-9]/m.test(m)
          ? m
          : undefined;
      },
      60_000,
    );
    const lines = body
      .split('\n')
      .filter((l) => /^haptic_(deployments|runtime_operations|reloads)_total\{/.test(l));
    expect(lines).toEqual([
      'haptic_deployments_total{pod="haptic/haproxy-0",result="unchanged"} 1',
    ]);
    expect(await reloads()).toBe(before);
    expect(await servers()).toBe(stateBefore);
  }, 120_000);

  it('rotates the Dataplane credentials with nothing restarted: the old password is refused, a later change deploys', async () => {
    const before = await reloads();
    const pid = controller.child.pid;
    await put({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { namespace: 'haptic', name: 'dp-creds' },
      data: { dataplane_username: b64('admin'), dataplane_password: b64('pw-2') },
    });
    writeFileSync(join(dir, 'dp.pw'), 'pw-2\n');
    const info = (pw: string) =>
      fetch(`${agent.url}/v3/info`, {
        headers: { authorization: `Basic ${b64(`admin:${pw}`)}` },
      }).then((r) => r.status);
    await waitFor('the agent to refuse the old password', async () =>
      (await info('pw-1')) === 401 ? true : undefined,
    );
    expect(await info('pw-2')).toBe(200);
    await put(ingress('after-rotation', 'after-rotation.example'));
    await served('after-rotation.example');
    expect(controller.child.pid).toBe(pid);
    expect(controller.child.exitCode).toBeNull();
    expect(await reloads()).toBe(before);
    expect(controller.output()).not.toMatch(/pw-[12]/);
  }, 120_000);
});
