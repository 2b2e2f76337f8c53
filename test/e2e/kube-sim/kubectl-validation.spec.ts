import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeSim } from '#testbed/kube-sim';
import { kubectls } from './kubectls.js';

interface Run {
  code: number;
  out: string;
  err: string;
}

/** kube-sim refuses what a real API server refuses, and kubectl prints the field-by-field reasons. */
let sim: KubeSim;
let dir: string;

beforeAll(async () => {
  sim = await KubeSim.start({ port: 0 });
  dir = await mkdtemp(join(tmpdir(), 'kube-sim-kubectl-validation-'));
});
afterAll(async () => {
  await sim.stop();
  await rm(dir, { recursive: true, force: true });
});

const badIngress = {
  apiVersion: 'networking.k8s.io/v1',
  kind: 'Ingress',
  metadata: { name: 'bad', namespace: 'default' },
  spec: {
    rules: [
      {
        host: 'Shop.example.com',
        http: {
          paths: [
            {
              path: 'cart',
              pathType: 'Prefix',
              backend: { service: { name: 'shop', port: { number: 80 } } },
            },
          ],
        },
      },
    ],
  },
};

describe.each(kubectls().map((k, i) => [k, i] as const))(
  'kubectl shows kube-sim validation (%s)',
  (kubectl, i) => {
    const k = (...args: string[]): Promise<Run> =>
      new Promise((resolve) => {
        const env = {
          PATH: process.env.PATH,
          HOME: dir,
          KUBECONFIG: sim.kubeconfigPath,
          KUBECACHEDIR: join(dir, `cache-${i}`),
        };
        execFile(kubectl, args, { env, timeout: 60_000 }, (e, out, err) =>
          resolve({ code: e ? ((e as { code?: number }).code ?? 1) : 0, out, err }),
        );
      });

    it('apply of an invalid Ingress: every cause printed with its field; nothing stored', async () => {
      const file = join(dir, `bad-ingress-${i}.json`);
      await writeFile(file, JSON.stringify(badIngress));
      const r = await k('apply', '-f', file);
      expect(r.code).not.toBe(0);
      expect(r.err).toContain('The Ingress "bad" is invalid:');
      expect(r.err).toContain(
        `* spec.rules[0].host: Invalid value: "Shop.example.com": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters`,
      );
      expect(r.err).toContain(
        '* spec.rules[0].http.paths[0].path: Invalid value: "cart": must be an absolute path',
      );
      const get = await k('get', 'ingress', 'bad', '-n', 'default');
      expect(get.err).toContain('NotFound');
    });

    it('create service nodeport with a port outside 30000-32767, and a taken one', async () => {
      const low = await k(
        'create',
        'service',
        'nodeport',
        `web-${i}`,
        '--tcp=80:8080',
        '--node-port=8080',
      );
      expect(low.code).not.toBe(0);
      expect(low.err).toContain(
        'spec.ports[0].nodePort: Invalid value: 8080: provided port is not in the valid range. The range of valid ports is 30000-32767',
      );
      const first = await k(
        'create',
        'service',
        'nodeport',
        `a-${i}`,
        '--tcp=80:8080',
        `--node-port=${31000 + i}`,
      );
      expect(first.code, first.err).toBe(0);
      const taken = await k(
        'create',
        'service',
        'nodeport',
        `b-${i}`,
        '--tcp=80:8080',
        `--node-port=${31000 + i}`,
      );
      expect(taken.err).toContain(
        `spec.ports[0].nodePort: Invalid value: ${31000 + i}: provided port is already allocated`,
      );
    });

    it('create secret tls needs both keys; a Service name must be a DNS-1035 label', async () => {
      const secret = join(dir, `tls-${i}.json`);
      await writeFile(
        secret,
        JSON.stringify({
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: { name: `tls-${i}`, namespace: 'default' },
          type: 'kubernetes.io/tls',
          stringData: { 'tls.crt': 'x' },
        }),
      );
      const r = await k('create', '-f', secret);
      expect(r.err).toContain(`The Secret "tls-${i}" is invalid: data[tls.key]: Required value`);
      const svc = await k('create', 'service', 'clusterip', `${i}web`, '--tcp=80:8080');
      expect(svc.err).toContain(
        `metadata.name: Invalid value: "${i}web": a DNS-1035 label must consist of`,
      );
    });
  },
);
