import { waitFor } from '#testbed/stack';
import {
  chmodSync,
  chownSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpEcho, type RunningEcho } from '#testbed/echo';
import { KubeSim, type KubeObject } from '#testbed/kube-sim';
import { dataplaneCredentialsSecret, freePort, registerAgentPod } from '#testbed/testing';
import { getWithHost, root } from '../e2e/controller/support.js';
import { builtImages, processes, runOnce, start, stop, zombies } from './podman.js';
import { templateConfig } from './scenario.js';

// The images as shipped: the Node version of the Dockerfile runs the compiled code, HAProxy is
// Debian's, under the chart's restrictions (uid 10001, read-only root, tmpfs /tmp, memory limit).
const images = builtImages();
const HAPROXY_IP = '127.0.0.71';
const ECHO_IP = '127.0.0.72';
/** Where the agent's HAProxy files live inside both containers (a host folder mounted there). */
const CONFIG_DIR = '/var/lib/haptic/haproxy';

describe('the controller image', () => {
  it('runs `haptic --help` as its entrypoint, on the Node version the Dockerfile names', () => {
    const help = runOnce(images.controller, ['--help']);
    expect(help.stderr).toBe('');
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/^Usage: haptic /m);
    expect(help.stdout).toMatch(/^\s+run\b/m);
    const wanted = /^ARG NODE_VERSION=(\S+)$/m.exec(readFileSync(join(root, 'Dockerfile'), 'utf8'));
    const node = runOnce(images.controller, ['--version'], ['--entrypoint', 'node']);
    expect(node.stdout.trim()).toBe(`v${wanted![1]}`);
  });

  it('leaves the test bed out: no libs/testbed code, kube-sim is refused with a clear message', () => {
    const r = runOnce(images.controller, ['kube-sim']);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('haptic kube-sim: part of the test bed, not of this installation');
    const help = runOnce(images.controller, ['--help']);
    expect(help.stdout).not.toMatch(/^\s+(kube-sim|node-sim|echo|bench)\b/m);
    // what dist/libs holds in the image: the product's libraries, and no test-bed folder
    const listing = runOnce(
      images.controller,
      ['-e', "console.log(require('fs').readdirSync('/app/dist/libs').sort().join(' '))"],
      ['--entrypoint', 'node'],
    );
    expect(listing.status).toBe(0);
    const libs = listing.stdout.trim().split(' ');
    expect(libs).not.toContain('testbed');
    expect(libs).toEqual(
      readdirSync(join(root, 'libs'))
        .filter((l) => l !== 'testbed')
        .sort(),
    );
  });
});

describe('haptic run and haptic agent from the image, against kube-sim on the host network', () => {
  let sim: KubeSim;
  let echo: RunningEcho;
  let dir: string;
  let httpPort: number;
  let healthPort: number;
  const agent = 'haptic-image-test-agent';
  const controller = 'haptic-image-test-controller';

  const viaHaproxy = (host: string) => getWithHost(HAPROXY_IP, httpPort, host);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'haptic-image-'));
    sim = await KubeSim.start({
      port: 0,
      manifests: [join(root, 'helm/haptic/crds/haproxytemplateconfigs.yaml')],
    });
    // readable by the container's user, mounted read-only
    copyFileSync(sim.kubeconfigPath, join(dir, 'kubeconfig'));
    writeFileSync(join(dir, 'dp.pw'), 'pw-1\n');
    for (const f of ['kubeconfig', 'dp.pw']) chmodSync(join(dir, f), 0o644);
    const config = join(dir, 'haproxy');
    mkdirSync(config);
    chownSync(config, 10001, 10001);
    echo = await startHttpEcho({
      mode: 'http',
      address: ECHO_IP,
      httpPort: 0,
      httpsPort: 0,
      context: { namespace: 'apps', ingress: '', service: 'web', pod: 'web-0' },
    });
    const agentPort = await freePort(HAPROXY_IP);
    httpPort = await freePort(HAPROXY_IP);
    healthPort = await freePort('127.0.0.1');
    const put = (o: Omit<KubeObject, 'metadata'> & { metadata: Record<string, unknown> }) =>
      sim.apply(o as KubeObject);
    for (const name of ['haptic', 'apps'])
      await put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    await sim.apply(dataplaneCredentialsSecret({ username: 'admin', password: 'pw-1' }));
    await registerAgentPod(sim, { name: 'haproxy-0', address: HAPROXY_IP, port: agentPort });
    await put(templateConfig(agentPort, httpPort));
    await put({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { namespace: 'apps', name: 'web' },
      spec: { ports: [{ name: 'http', port: 80 }] },
    });
    await put({
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: {
        namespace: 'apps',
        name: 'web-1',
        labels: { 'kubernetes.io/service-name': 'web' },
      },
      addressType: 'IPv4',
      endpoints: [{ addresses: [ECHO_IP], conditions: { ready: true } }],
      ports: [{ name: 'http', port: echo.listeners[0]!.port }],
    });
    start(
      agent,
      images.controller,
      [
        'agent',
        '--address',
        HAPROXY_IP,
        '--port',
        String(agentPort),
        '--config-dir',
        CONFIG_DIR,
        '--username',
        'admin',
        '--password-file',
        '/etc/haptic/dp.pw',
      ],
      ['-v', `${dir}/dp.pw:/etc/haptic/dp.pw:ro`, '-v', `${config}:${CONFIG_DIR}`],
    );
    start(
      controller,
      images.controller,
      [
        'run',
        '--kubeconfig',
        '/etc/haptic/kubeconfig',
        '-n',
        'haptic',
        '-c',
        'haptic',
        '--address',
        '127.0.0.1',
        '--health-port',
        String(healthPort),
        '--metrics-port',
        '0',
        '--identity',
        'image-test',
      ],
      ['-v', `${dir}/kubeconfig:/etc/haptic/kubeconfig:ro`],
    );
  }, 120_000);

  afterAll(async () => {
    for (const name of [controller, agent]) await stop(name);
    await echo?.close();
    await sim?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('becomes ready and serves an Ingress through the agent’s HAProxy', async () => {
    await waitFor(
      'readiness',
      async () =>
        (await fetch(`http://127.0.0.1:${healthPort}/readyz`)).status === 200 ? true : undefined,
      60_000,
    );
    await sim.apply({
      apiVersion: 'networking.k8s.io/v1',
      kind: 'Ingress',
      metadata: { namespace: 'apps', name: 'web' },
      spec: {
        rules: [
          {
            host: 'web.example.com',
            http: {
              paths: [
                {
                  path: '/',
                  pathType: 'Prefix',
                  backend: { service: { name: 'web', port: { number: 80 } } },
                },
              ],
            },
          },
        ],
      },
    });
    const r = await waitFor(
      'the Ingress host to answer through HAProxy',
      async () => {
        const res = await viaHaproxy('web.example.com').catch(() => undefined);
        return res?.status === 200 ? res : undefined;
      },
      60_000,
    );
    expect(JSON.parse(r.body)).toMatchObject({ host: 'web.example.com', pod: 'web-0' });
  }, 120_000);

  it('re-executes Node once with a heap limit derived from the memory limit (no second node)', () => {
    const nodes = [...processes(controller).entries()].filter(
      ([, cmd]) => / \/app\/bin\/haptic\.js /.test(` ${cmd} `) || cmd.startsWith('node '),
    );
    expect(nodes).toHaveLength(1);
    expect(nodes[0]![1]).toMatch(/--max-old-space-size=\d+/);
    expect(processes(controller).get(1)).toMatch(/^\/usr\/bin\/tini -- haptic run/);
  });

  it('validates the rendered configuration with `haproxy -c` in both images', () => {
    const cfg = `${CONFIG_DIR}/haproxy.cfg`;
    // map and certificate paths are relative to the config folder, HAProxy's working folder
    const mount = [
      '--workdir',
      CONFIG_DIR,
      '-v',
      `${join(dir, 'haproxy')}:${CONFIG_DIR}:ro`,
      '--env',
      `POD_IP=${HAPROXY_IP}`,
    ];
    expect(readFileSync(join(dir, 'haproxy', 'haproxy.cfg'), 'utf8')).toContain('be_apps_web');
    const inHaproxyImage = runOnce(images.haproxy, ['-c', '-f', cfg], mount);
    expect(inHaproxyImage.stderr).not.toContain('ALERT');
    expect(inHaproxyImage.status).toBe(0);
    // the check reads the maps: from another folder the same file is refused
    const elsewhere = runOnce(images.haproxy, ['-c', '-f', cfg], [...mount, '--workdir', '/tmp']);
    expect(elsewhere.stderr).toContain('failed to open pattern file <maps/hosts.map>');
    expect(elsewhere.status).not.toBe(0);
    const inController = runOnce(
      images.controller,
      ['-c', '-f', cfg],
      [...mount, '--entrypoint', 'haproxy'],
    );
    expect(inController.status).toBe(0);
  });

  it('leaves no unreaped process behind the agent after reloads', () => {
    expect(zombies(agent)).toEqual([]);
    expect(processes(agent).get(1)).toMatch(/^\/usr\/bin\/tini -- haptic agent/);
  });

  it('stops both on SIGTERM through tini, with exit code 0', async () => {
    const c = await stop(controller);
    expect(c.code, c.logs).toBe(0);
    const a = await stop(agent);
    expect(a.code, a.logs).toBe(0);
  }, 90_000);
});
