/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return -- API objects are read loosely */
import { execFile } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { connect as tlsConnect } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { KubeObject } from '#testbed/kube-sim';
import { Stack, waitFor } from '#testbed/stack';
import { chartDir, kubectl } from './helm.js';

// The webhook's blast radius is one controller: the chart installed on kube-sim (which evaluates
// matchConditions with a CEL evaluator, as the API server does) + node-sim, written to with the
// real kubectl. Installed with the opt-in failurePolicy Fail, so that a call that is made while
// no controller answers shows as a refusal: an Ingress of another class must never be one.
const NS = 'haptic';
const HOOK = 'resources.haptic.haproxy-haptic.org';
const HOSTILE = { 'haproxy-haptic.org/timeout-server': '5s\nlua-load /tmp/evil.lua' };

const ingress = (
  namespace: string,
  name: string,
  { className, annotations = {} }: { className?: string; annotations?: Record<string, string> },
): KubeObject => ({
  apiVersion: 'networking.k8s.io/v1',
  kind: 'Ingress',
  metadata: { namespace, name, annotations },
  spec: {
    ...(className ? { ingressClassName: className } : {}),
    rules: [
      {
        host: `${name}.scope.example`,
        http: {
          paths: [
            {
              path: '/',
              pathType: 'Prefix',
              backend: { service: { name: 'web', port: { number: 8080 } } },
            },
          ],
        },
      },
    ],
  },
});

/** The certificate a TLS server presents for `servername`, or undefined while it does not answer. */
const peerCertificate = (host: string, port: number, servername: string) =>
  new Promise<X509Certificate | undefined>((resolve) => {
    const socket = tlsConnect({ host, port, servername, rejectUnauthorized: false }, () => {
      const raw = socket.getPeerX509Certificate();
      socket.destroy();
      resolve(raw);
    });
    socket.setTimeout(5_000, () => {
      socket.destroy();
      resolve(undefined);
    });
    socket.on('error', () => resolve(undefined));
  });

describe('the chart webhook reaches only its own class of Ingress', () => {
  let stack: Stack;

  const kubectlRun = (args: string[], stdin?: string) =>
    new Promise<{ code: number; err: string }>((resolve) => {
      const child = execFile(
        kubectl(),
        [...args, '--kubeconfig', stack.kubeconfigPath],
        { timeout: 60_000 },
        (e, _out, err) => resolve({ code: e ? ((e as { code?: number }).code ?? 1) : 0, err }),
      );
      child.stdin!.end(stdin ?? '');
    });
  const apply = (o: KubeObject) => kubectlRun(['apply', '-f', '-'], stringify(o, { lineWidth: 0 }));
  const exists = async (o: KubeObject) =>
    (await stack.get(
      `/apis/networking.k8s.io/v1/namespaces/${o.metadata.namespace!}/ingresses/${o.metadata.name}`,
    )) !== undefined;
  /** `kubectl scale --replicas=0` of the controllers, then waits until no controller pod is left. */
  const stopControllers = async () => {
    const r = await kubectlRun(['scale', '-n', NS, 'deployment/haptic-controller', '--replicas=0']);
    expect(r).toEqual({ code: 0, err: '' });
    await waitFor(
      'no controller pod left',
      async () => {
        const pods: any = await stack.get(
          `/api/v1/namespaces/${NS}/pods?labelSelector=app.kubernetes.io/component%3Dcontroller`,
        );
        return pods.items.length === 0 ? true : undefined;
      },
      120_000,
    );
  };

  beforeAll(async () => {
    stack = await Stack.start({
      install: 'chart',
      // Real probe periods: nothing here is timed, and a loaded machine must not turn slow
      // starts into liveness kills.
      readyTimeoutMs: 240_000,
      // No default certificate named (the stack names its own otherwise): the chart's
      // self-signed one is what HTTPS serves.
      chartValues: {
        'webhook.failurePolicy': 'Fail',
        'controller.config.extraContext.default_certificate': '',
      },
    });
    await stack.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'apps' } });
  }, 300_000);

  afterAll(async () => {
    await stack?.stop();
  });

  it('installs the Ingress entry with its class condition and the namespaces left out', async () => {
    const vwc: any = await stack.get(
      '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/haptic-webhook',
    );
    const hook = vwc.webhooks.find((w: any) => w.name === HOOK);
    expect(hook.failurePolicy).toBe('Fail');
    expect(hook.matchConditions.map((c: any) => c.name)).toEqual(['ingress-class']);
    expect(hook.namespaceSelector.matchExpressions).toContainEqual({
      key: 'kubernetes.io/metadata.name',
      operator: 'NotIn',
      values: ['kube-system', NS],
    });
  });

  it("every HAProxy pod serves HAProxy's Prometheus metrics at /metrics on the stats port (the chart's default)", async () => {
    const pods = await stack.haproxyPods();
    expect(pods.length).toBeGreaterThan(0);
    for (const p of pods) {
      const r = await fetch(`http://${p.ip}:${stack.topology.statsPort}/metrics`);
      expect(r.status, p.name).toBe(200);
      expect(await r.text(), p.name).toMatch(/^haproxy_process_nbthread /m);
    }
  });

  it('every HAProxy pod answers HTTPS before any TLS Secret of an Ingress exists, with the self-signed certificate the controller keeps', async () => {
    const secret: any = await waitFor(
      'the self-signed certificate Secret',
      () => stack.get(`/api/v1/namespaces/${NS}/secrets/haptic-default-tls`),
      120_000,
    );
    expect(secret.type).toBe('kubernetes.io/tls');
    expect(secret.metadata.labels['haptic.haproxy-haptic.org/self-signed-certificate']).toBe(
      'true',
    );
    const kept = new X509Certificate(Buffer.from(secret.data['tls.crt'] as string, 'base64'));
    const pods = await stack.haproxyPods();
    expect(pods.length).toBeGreaterThan(0);
    for (const p of pods) {
      // Polled: the Secret's arrival is a change like any other (a new bind: one reload).
      const served = await waitFor(
        `HTTPS on ${p.name}`,
        () => peerCertificate(p.ip, stack.topology.httpsPort, 'unknown.scope.example'),
        120_000,
      );
      expect(served.fingerprint256, p.name).toBe(kept.fingerprint256);
      expect(served.subject, p.name).toBe('CN=haptic default certificate\nO=haptic');
    }
  });

  it('while the controllers run: a hostile Ingress of haptic class is denied, by the class field or the legacy annotation; other classes and kube-system never reach the webhook', async () => {
    const byField = ingress('apps', 'evil-field', { className: 'haptic', annotations: HOSTILE });
    const denied = await apply(byField);
    expect(denied.code).not.toBe(0);
    expect(denied.err).toContain(
      `admission webhook "${HOOK}" denied the request: Ingress apps/evil-field: annotation haproxy-haptic.org/timeout-server`,
    );
    expect(await exists(byField)).toBe(false);
    // The legacy annotation wins over the field, as the library reads it.
    const byAnnotation = ingress('apps', 'evil-annotation', {
      className: 'nginx',
      annotations: { ...HOSTILE, 'kubernetes.io/ingress.class': 'haptic' },
    });
    const denied2 = await apply(byAnnotation);
    expect(denied2.err).toContain(`admission webhook "${HOOK}" denied the request`);
    expect(await exists(byAnnotation)).toBe(false);
    // The same hostile annotation on another controller's Ingress is not haptic's business.
    for (const o of [
      ingress('apps', 'theirs', { className: 'nginx', annotations: HOSTILE }),
      ingress('kube-system', 'system', { className: 'haptic', annotations: HOSTILE }),
    ]) {
      expect(await apply(o), `${o.metadata.namespace}/${o.metadata.name}`).toEqual({
        code: 0,
        err: '',
      });
      expect(await exists(o)).toBe(true);
    }
  });

  it('with every controller replica stopped: an Ingress of another class is applied; one of haptic class meets failurePolicy', async () => {
    await stopControllers();
    const other = ingress('apps', 'other-while-down', { className: 'nginx' });
    expect(await apply(other)).toEqual({ code: 0, err: '' });
    expect(await exists(other)).toBe(true);
    const legacyOther = ingress('apps', 'legacy-other-while-down', {
      annotations: { 'kubernetes.io/ingress.class': 'nginx' },
    });
    expect(await apply(legacyOther)).toEqual({ code: 0, err: '' });
    // The webhook is still in force for haptic's class: Fail refuses it while no one answers.
    const ours = ingress('apps', 'ours-while-down', { className: 'haptic' });
    const refused = await apply(ours);
    expect(refused.code).not.toBe(0);
    expect(refused.err).toContain(`failed calling webhook "${HOOK}"`);
    expect(await exists(ours)).toBe(false);
    // The default failurePolicy, Ignore: haptic's own Ingresses can be written too.
    await stack.helm.ok([
      'upgrade',
      Stack.RELEASE,
      chartDir,
      '-n',
      NS,
      '--reuse-values',
      '--force-conflicts',
      '--set',
      'webhook.failurePolicy=Ignore',
    ]);
    // helm takes the Deployment's replicas back from kubectl: stop them again.
    await stopControllers();
    expect(await apply(ours)).toEqual({ code: 0, err: '' });
    expect(await exists(ours)).toBe(true);
  });
});
