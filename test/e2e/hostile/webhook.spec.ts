import { waitFor } from '#testbed/stack';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateCertificate, KubeSim, type KubeObject } from '#testbed/kube-sim';
import { classify, quarantinedIndexes } from '../../hostile/classify.js';
import { buildCorpus, sampleOf, type HostileCase } from '../../hostile/corpus.js';
import { corpusLibrary, LibraryRenderer } from '../../hostile/library.js';
import { baseObjects, type Obj } from '../../hostile/objects.js';
import { makePki } from '../../hostile/pki.js';
import { haptic, root, type HapticProcess } from '../controller/support.js';

// Leg "admission webhook": each case's objects written through kube-sim's real admission path
// (API validation first, as a real API server does, then a ValidatingWebhookConfiguration that
// calls `haptic run`'s webhook over HTTPS). Each case ends one of four ways, all accounted:
// refused by the API (kube-sim validates as a real server does), denied by the webhook with a
// reason naming the object, allowed and then quarantined by the controller (an object the
// review of another one cannot blame, e.g. a bad Secret written before the Ingress that uses
// it), or allowed and rendered safely (the in-process verdict against its harmless twin).
// An allowed case whose render is an injection fails the test.

const FULL = process.env['HOSTILE_FULL'] === '1';
/** The whole corpus may take an hour on a slow machine; the sample has a real budget. */
const BUDGET_MS = FULL ? 3_600_000 : 600_000;
const ONLY = process.env['HOSTILE_CASES']?.split(',');
/** The `npm test` sample: every 20th case, and the live leg's chosen ones. */
const CHOSEN = [
  'ingress.host/newline',
  'ingress.path/cli-command',
  'annotation request-headers (value)/log-format',
  'annotation response-headers (value)/sample-fetch-cookie',
  'annotation route-tag (bare template)/log-format',
  'annotation route-tag (bare template)/log-format-flags',
  'annotation route-tag (bare template)/env-quoted',
  'annotation redirect-to/escaped-semicolon',
  'certificate/key-mismatch',
  'certificate/lines-after-pem',
  'secret.name (tls)/semicolon',
];
const HOOK = 'hostile.haptic.haproxy-haptic.org';
const BACKEND = { ip: '127.0.0.73', port: 8080 };
const b64 = (s: string) => Buffer.from(s).toString('base64');
const refOf = (o: { namespace?: string | undefined; name: string }) =>
  `${o.namespace ?? ''}/${o.name}`;

type Outcome =
  | { kind: 'refused by the API'; detail: string }
  | { kind: 'denied'; reason: string }
  | { kind: 'quarantined'; objects: string[] }
  | { kind: 'rendered safely' };

describe('the hostile-input corpus through the admission webhook', () => {
  let sim: KubeSim;
  let controller: HapticProcess;
  let renderer: LibraryRenderer;
  let base: Obj[];
  let cases: HostileCase[];
  let dir: string;
  let health: number;
  const outcomes: { c: HostileCase; outcome: Outcome }[] = [];

  const debugQuarantine = async (): Promise<string[]> => {
    const res = await fetch(`http://127.0.0.1:${health}/debug/quarantine`);
    const q = (await res.json()) as { objects: { namespace?: string; name: string }[] };
    return q.objects.map(refOf).sort();
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'haptic-hostile-webhook-'));
    mkdirSync(join(dir, 'tls'));
    const tls = await generateCertificate({ dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });
    writeFileSync(join(dir, 'tls', 'tls.crt'), tls.cert);
    writeFileSync(join(dir, 'tls', 'tls.key'), tls.key);
    const pki = makePki();
    sim = await KubeSim.start({
      port: 0,
      manifests: [join(root, 'helm/haptic/crds/haproxytemplateconfigs.yaml')],
    });
    const put = (o: object) => sim.apply(o as KubeObject);
    for (const name of ['haptic', 'apps'])
      await put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    await put({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { namespace: 'haptic', name: 'dp-creds' },
      data: { dataplane_username: b64('admin'), dataplane_password: b64('pw-1') },
    });
    const library = corpusLibrary();
    renderer = new LibraryRenderer(library.config);
    const resource = parse(library.text) as { spec: Record<string, unknown> };
    const spec = resource.spec;
    delete spec['validationTests'];
    // every watched resource is reviewed (the shipped library opts none in by itself)
    for (const w of Object.values(spec['watchedResources'] as Record<string, object>))
      Object.assign(w, { enableValidationWebhook: true });
    await put({
      ...resource,
      metadata: { namespace: 'haptic', name: 'haptic' },
      spec: {
        ...spec,
        credentialsSecretRef: { name: 'dp-creds' },
        podSelector: { matchLabels: { app: 'haproxy' } },
        controller: { reconcile: { debounce: '20ms', maxDelay: '200ms' } },
      },
    });
    base = baseObjects(pki, BACKEND);
    for (const o of base) await put(o);
    const all = buildCorpus(pki, BACKEND);
    cases = ONLY
      ? all.filter((c) => ONLY.includes(c.id))
      : FULL
        ? all
        : [...sampleOf(all, 20), ...all.filter((c) => CHOSEN.includes(c.id))].filter(
            (c, k, xs) => xs.indexOf(c) === k,
          );
    controller = haptic([
      'run',
      ...['--kubeconfig', sim.kubeconfigPath, '-n', 'haptic', '-c', 'haptic'],
      ...['--address', '127.0.0.1', '--health-port', '0', '--metrics-port', '0'],
      ...['--webhook-port', '0', '--webhook-cert-dir', join(dir, 'tls')],
      ...['--log-level', 'warn', '--identity', 'hostile-webhook'],
    ]);
    const webhookPort = await waitFor(
      'the controller to print its ports',
      () => {
        const m = /"webhookPort":(\d+)/.exec(controller.output());
        return m ? Number(m[1]) : undefined;
      },
      60_000,
    );
    health = Number(/"healthPort":(\d+)/.exec(controller.output())![1]);
    const rule = (apiGroups: string[], resources: string[]) => ({
      apiGroups,
      apiVersions: ['v1'],
      resources,
      operations: ['CREATE', 'UPDATE'],
      scope: '*',
    });
    await put({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'haptic-hostile' },
      webhooks: [
        {
          name: HOOK,
          admissionReviewVersions: ['v1'],
          sideEffects: 'None',
          failurePolicy: 'Fail',
          timeoutSeconds: 10,
          clientConfig: {
            url: `https://127.0.0.1:${webhookPort}/validate`,
            caBundle: b64(tls.cert),
          },
          rules: [
            rule(['networking.k8s.io'], ['ingresses']),
            rule([''], ['services', 'secrets']),
            rule(['discovery.k8s.io'], ['endpointslices']),
          ],
          namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'apps' } },
        },
      ],
    });
    // the config is in force once a harmless write gets a dry run (`allowed`, not `skipped`)
    const metrics = Number(/"metricsPort":(\d+)/.exec(controller.output())![1]);
    let probe = 0;
    await waitFor(
      'the webhook to review with the config in force',
      async () => {
        await put({
          ...base[1]!,
          metadata: { ...base[1]!.metadata, labels: { probe: `${probe++}` } },
        });
        const body = await (await fetch(`http://127.0.0.1:${metrics}/metrics`)).text();
        return /^haptic_webhook_requests_total\{kind="resource",result="allowed"\} [1-9]/m.test(
          body,
        )
          ? true
          : undefined;
      },
      60_000,
    );
  }, 180_000);

  afterAll(async () => {
    if (controller && controller.child.exitCode === null) {
      controller.child.kill('SIGKILL');
      await controller.exited;
    }
    await sim?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  async function runCase(c: HostileCase): Promise<Outcome> {
    const stored: Obj[] = [];
    let outcome: Outcome | undefined;
    for (const o of c.objects) {
      try {
        await sim.apply(o);
        stored.push(o);
      } catch (e) {
        const msg = e instanceof Error ? e.message : String(e);
        const denied = new RegExp(
          `admission webhook "${HOOK}" denied the request: (.*)$`,
          's',
        ).exec(msg);
        if (denied) outcome ??= { kind: 'denied', reason: denied[1]! };
        else if (/failed calling webhook|webhook/i.test(msg))
          throw new Error(`${c.id}: the webhook did not answer: ${msg.slice(0, 300)}`, {
            cause: e,
          });
        else outcome ??= { kind: 'refused by the API', detail: msg.slice(0, 200) };
      }
    }
    if (outcome === undefined) {
      const inProcess = renderer.render([...base, ...c.objects]);
      if (!inProcess.ok) throw new Error(`${c.id} does not render in process`);
      const left = quarantinedIndexes(c.objects, inProcess);
      if (left.size > 0) {
        const names = [...left].map((k) => refOf(c.objects[k]!.metadata)).sort();
        await waitFor(`${c.id}: allowed, then quarantined by the controller`, async () =>
          JSON.stringify(await debugQuarantine()) === JSON.stringify(names) ? true : undefined,
        );
        outcome = { kind: 'quarantined', objects: names };
      } else {
        const twin = renderer.render([...base, ...c.twin]);
        if (!twin.ok) throw new Error(`corpus defect: the twin of ${c.id} does not render`);
        const verdict = classify(
          c.objects,
          inProcess,
          twin.outputs,
          (gone) => renderer.render([...base, ...c.twin.filter((_, k) => !gone.has(k))]),
          c.literal,
        );
        if (verdict.kind !== 'rendered-safely')
          throw new Error(`${c.id}: allowed by the webhook but ${JSON.stringify(verdict)}`);
        outcome = { kind: 'rendered safely' };
      }
    }
    for (const o of [...stored].reverse()) sim.removeUnchecked(o);
    await waitFor(`${c.id}: removed`, async () =>
      (await debugQuarantine()).length === 0 ? true : undefined,
    );
    return outcome;
  }

  it(
    'accounts for every case: refused, denied with a reason, quarantined or rendered safely',
    async () => {
      const started = performance.now();
      for (const c of cases) outcomes.push({ c, outcome: await runCase(c) });
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      const n = (kind: Outcome['kind']) => outcomes.filter((o) => o.outcome.kind === kind).length;
      console.log(
        `hostile corpus, webhook: ${outcomes.length} cases in ${seconds} s;`,
        `${n('refused by the API')} refused by the API (kube-sim), ${n('denied')} denied by the webhook,`,
        `${n('quarantined')} allowed then quarantined, ${n('rendered safely')} rendered safely, 0 injections`,
      );
      expect(outcomes).toHaveLength(cases.length);
      expect(cases.length).toBeGreaterThanOrEqual(ONLY?.length ?? (FULL ? 700 : 50));
      // a denial names the object it refuses (kind and name, as the renderer blames it)
      for (const { c, outcome } of outcomes) {
        if (outcome.kind !== 'denied') continue;
        const o = c.objects.find((x) => outcome.reason.includes(`${x.kind} `));
        expect(o, `${c.id}: ${outcome.reason.slice(0, 200)}`).toBeDefined();
        expect(outcome.reason, c.id).not.toMatch(/[\n\r\0]/);
      }
      expect(n('denied')).toBeGreaterThan(0);
      // the Dataplane password never reaches the controller's log
      expect(controller.output()).not.toContain('pw-1');
    },
    BUDGET_MS,
  );
});
