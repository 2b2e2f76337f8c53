import { execFile, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeSim } from '#testbed/kube-sim';
import { kubectls } from './kubectls.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url));
const crds = ['gatewayclasses', 'gateways', 'httproutes'].map((n) =>
  join(root, 'test/fixtures/gateway-api', `gateway.networking.k8s.io_${n}.yaml`),
);

interface Run {
  code: number;
  out: string;
  err: string;
}

describe.each(kubectls())('kubectl session (%s)', (kubectl) => {
  let sim: KubeSim;
  let dir: string;
  let env: NodeJS.ProcessEnv;

  const k = (...args: string[]): Promise<Run> =>
    new Promise((resolve) => {
      execFile(kubectl, args, { env, timeout: 30_000, maxBuffer: 16 << 20 }, (e, out, err) =>
        resolve({ code: e ? ((e as { code?: number }).code ?? 1) : 0, out, err }),
      );
    });
  const ok = async (...args: string[]): Promise<string> => {
    const r = await k(...args);
    expect(r.err, `kubectl ${args.join(' ')}`).not.toMatch(/error/i);
    expect(r.code, `kubectl ${args.join(' ')}: ${r.err}`).toBe(0);
    return r.out;
  };

  beforeAll(async () => {
    sim = await KubeSim.start({ tls: true });
    dir = await mkdtemp(join(tmpdir(), 'kube-sim-kubectl-'));
    env = {
      PATH: process.env.PATH,
      HOME: dir,
      KUBECONFIG: sim.kubeconfigPath,
      KUBECACHEDIR: join(dir, 'cache'),
    };
  });
  afterAll(async () => {
    await sim.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('creates CRDs and applies Ingress, Service, EndpointSlice and Gateway API objects', async () => {
    for (const crd of crds) expect(await ok('create', '-f', crd)).toMatch(/created/);
    const out = await ok('apply', '-f', join(fixtures, 'session.yaml'));
    for (const what of [
      'service/echo created',
      'endpointslice.discovery.k8s.io/echo-abc12 created',
      'ingress.networking.k8s.io/echo created',
      'httproute.gateway.networking.k8s.io/echo created',
    ]) {
      expect(out).toContain(what);
    }
    expect(await ok('apply', '-f', join(fixtures, 'session.yaml'))).toContain(
      'ingress.networking.k8s.io/echo unchanged',
    );
    const changed = join(dir, 'changed.yaml');
    await writeFile(
      changed,
      (await readFile(join(fixtures, 'session.yaml'), 'utf8')).replace(
        'echo.example.com',
        'diff.example.com',
      ),
    );
    const diff = await k('diff', '-f', changed);
    expect(diff.code, diff.err).toBe(1); // kubectl diff: 1 means "differences found"
    expect(diff.out).toMatch(/-\s+- host: echo\.example\.com\n\+\s+- host: diff\.example\.com/);
    // Switching to server-side apply with a changed value of a field client-side apply set is the
    // real server's conflict with "kubectl-client-side-apply" (rules are an atomic list).
    const ssa = await k('apply', '--server-side', '-f', changed);
    expect(ssa.code).not.toBe(0);
    expect(ssa.err).toContain(
      'Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using networking.k8s.io/v1: .spec.rules',
    );
  });

  it('prints real columns with get', async () => {
    const svc = await ok('get', 'svc', 'echo');
    expect(svc).toMatch(/NAME\s+TYPE\s+CLUSTER-IP\s+EXTERNAL-IP\s+PORT\(S\)\s+AGE/);
    // A cluster IP from anywhere in 10.96.0.0/12 (10.96.0.0 – 10.111.255.255).
    expect(svc).toMatch(/echo\s+ClusterIP\s+10\.(9[6-9]|10\d|11[01])\.\d+\.\d+\s+<none>\s+80\/TCP/);
    expect(await ok('get', 'ingress')).toMatch(/echo\s+haptic\s+echo\.example\.com\s+80/);
    expect(await ok('get', 'endpointslices')).toMatch(
      /echo-abc12\s+IPv4\s+8080\s+127\.0\.0\.11,127\.0\.0\.12/,
    );
    const routes = await ok('get', 'httproutes');
    expect(routes).toMatch(/NAME\s+HOSTNAMES\s+AGE/);
    expect(routes).toMatch(/echo\s+\["route\.example\.com"\]/);
    expect(await ok('get', 'gateways')).toMatch(/NAME\s+CLASS\s+ADDRESS\s+PROGRAMMED\s+AGE/);
    expect(await ok('get', 'svc', '-o', 'wide')).toMatch(/SELECTOR[\s\S]*app=echo/);
  });

  it('prints objects with get -o yaml', async () => {
    const y = await ok('get', 'httproute', 'echo', '-o', 'yaml');
    expect(y).toMatch(/apiVersion: gateway\.networking\.k8s\.io\/v1/);
    expect(y).toMatch(/generation: 1/);
    expect(y).toMatch(/- route\.example\.com/);
    // defaults from the CRD's structural schema were applied
    expect(y).toMatch(/weight: 1/);
    expect(await ok('get', 'ing', 'echo', '-o', 'jsonpath={.spec.rules[0].host}')).toBe(
      'echo.example.com',
    );
  });

  it('follows changes with get -w, patch, label and annotate', async () => {
    const child = spawn(kubectl, ['get', 'ingress', '-w'], { env });
    let seen = '';
    child.stdout.on('data', (d: Buffer) => (seen += d.toString()));
    try {
      await waitUntil(() => seen.includes('echo.example.com'));
      expect(
        await ok(
          'patch',
          'ingress',
          'echo',
          '-p',
          '{"spec":{"rules":[{"host":"patched.example.com","http":{"paths":[{"path":"/","pathType":"Prefix","backend":{"service":{"name":"echo","port":{"number":80}}}}]}}]}}',
        ),
      ).toContain('patched');
      await waitUntil(() => seen.includes('patched.example.com'));
    } finally {
      child.kill();
    }
    expect(
      await ok(
        'patch',
        'svc',
        'echo',
        '--type=json',
        '-p',
        '[{"op":"replace","path":"/spec/ports/0/port","value":8081}]',
      ),
    ).toContain('patched');
    expect(await ok('get', 'svc', 'echo')).toMatch(/8081\/TCP/);
    expect(
      await ok(
        'patch',
        'httproute',
        'echo',
        '--type=merge',
        '-p',
        '{"spec":{"hostnames":["merged.example.com"]}}',
      ),
    ).toContain('patched');
    const strategicOnCrd = await k(
      'patch',
      'httproute',
      'echo',
      '-p',
      '{"spec":{"hostnames":["x.example.com"]}}',
    );
    expect(strategicOnCrd.code).not.toBe(0); // a real server refuses strategic merge on custom resources
    expect(strategicOnCrd.err).toMatch(
      /strategic merge patch is not supported|unknown format|UnsupportedMediaType/i,
    );
    for (const r of ['ingress/echo', 'svc/echo', 'endpointslice/echo-abc12', 'httproute/echo']) {
      expect(await ok('label', r, 'team=edge')).toContain('labeled');
      expect(await ok('annotate', r, 'note=hello')).toContain('annotated');
    }
    expect(
      await ok('get', 'ingress,svc,endpointslices,httproutes', '-l', 'team=edge', '-o', 'name'),
    ).toMatch(
      /ingress.networking.k8s.io\/echo[\s\S]*service\/echo[\s\S]*endpointslice.discovery.k8s.io\/echo-abc12[\s\S]*httproute.gateway.networking.k8s.io\/echo/,
    );
    expect(await ok('get', 'httproute', 'echo', '-o', 'jsonpath={.metadata.generation}')).toBe('2');
  });

  it('describes objects', async () => {
    const ing = await ok('describe', 'ingress', 'echo');
    expect(ing).toMatch(/Name:\s+echo/);
    expect(ing).toMatch(/patched\.example\.com/);
    expect(ing).toMatch(/note:\s+hello/);
    expect(await ok('describe', 'svc', 'echo')).toMatch(/Endpoints:\s+127\.0\.0\.11:8080/);
    expect(await ok('describe', 'endpointslice', 'echo-abc12')).toMatch(/AddressType:\s+IPv4/);
    expect(await ok('describe', 'httproute', 'echo')).toMatch(
      /Kind:\s+HTTPRoute[\s\S]*merged\.example\.com/,
    );
  });

  it('refuses an unknown field under Strict and an object over the size limits as a real server does', async () => {
    const typo = await k('apply', '-f', join(fixtures, 'unknown-field.yaml'));
    expect(typo.code).not.toBe(0);
    expect(typo.err).toContain('strict decoding error: unknown field "spec.hostnamez"');
    const typoIng = await k('apply', '-f', join(fixtures, 'unknown-field-ingress.yaml'));
    expect(typoIng.code).not.toBe(0);
    expect(typoIng.err).toContain('strict decoding error: unknown field "spec.rulez"');
    const lax = await k(
      'apply',
      '--validate=false',
      '-f',
      join(fixtures, 'unknown-field-ingress.yaml'),
    );
    expect(lax.code).toBe(0); // without Strict the field is pruned, as a real server prunes it
    expect(await ok('get', 'ingress', 'typo', '-o', 'jsonpath={.spec}')).toBe(
      '{"defaultBackend":{"service":{"name":"echo","port":{"number":80}}},"ingressClassName":"haptic"}',
    );
    await ok('delete', 'ingress', 'typo');
    const big = join(dir, 'big.yaml');
    await writeFile(
      big,
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\n  annotations:\n    blob: "${'x'.repeat(300 * 1024)}"\n`,
    );
    const tooBig = await k('create', '-f', big);
    expect(tooBig.code).not.toBe(0);
    expect(tooBig.err).toContain(
      'metadata.annotations: Too long: may not be more than 262144 bytes',
    );
    const huge = join(dir, 'huge.yaml');
    await writeFile(
      huge,
      `apiVersion: v1\nkind: Secret\nmetadata:\n  name: huge\nstringData:\n${Array.from({ length: 4 }, (_, i) => `  k${i}: "${'y'.repeat(1024 * 1024)}"`).join('\n')}\n`,
    );
    const overBody = await k('create', '-f', huge);
    expect(overBody.code).not.toBe(0);
    expect(overBody.err).toMatch(/Request entity too large: limit is 3145728/);
  });

  it('runs imperative generators, which send protobuf', async () => {
    expect(await ok('create', 'namespace', 'team')).toContain('namespace/team created');
    expect(await ok('-n', 'team', 'create', 'configmap', 'cfg', '--from-literal=a=b')).toContain(
      'created',
    );
    expect(
      await ok('-n', 'team', 'create', 'secret', 'generic', 'sec', '--from-literal=user=admin'),
    ).toContain('created');
    expect(await ok('-n', 'team', 'create', 'serviceaccount', 'robot')).toContain('created');
    expect(await ok('-n', 'team', 'get', 'cm', 'cfg', '-o', 'jsonpath={.data.a}')).toBe('b');
    expect(await ok('-n', 'team', 'get', 'secret', 'sec', '-o', 'jsonpath={.data.user}')).toBe(
      Buffer.from('admin').toString('base64'),
    );
    expect(await ok('-n', 'team', 'create', 'deployment', 'web', '--image=nginx')).toContain(
      'deployment.apps/web created',
    );
    expect(
      await ok(
        '-n',
        'team',
        'get',
        'deploy',
        'web',
        '-o',
        'jsonpath={.spec.template.spec.containers[0].image}',
      ),
    ).toBe('nginx');
    expect(await ok('delete', 'namespace', 'team')).toContain('deleted');
  });

  it('deletes objects', async () => {
    for (const r of ['ingress/echo', 'svc/echo', 'endpointslice/echo-abc12', 'httproute/echo'])
      expect(await ok('delete', r)).toContain('deleted');
    expect(await ok('get', 'ingress,svc,endpointslices,httproutes', '-o', 'name')).toBe('');
  });
});

async function waitUntil(pred: () => boolean, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > end) throw new Error('timed out waiting for kubectl output');
    await new Promise((r) => setTimeout(r, 25));
  }
}
