/* eslint-disable @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-unsafe-argument -- rendered manifests are untyped YAML; the assertions check their shape */
import { X509Certificate } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { find, runHelm, chartDir, template, TEST_PASSWORD, type Manifest } from './helm.js';
import { problems } from './models.js';

/** The value sets every rendered manifest is validated with. */
const VALUE_SETS: Record<string, Record<string, string | number | boolean>> = {
  defaults: {},
  'test-bed': {
    'haproxy.ports.http': 8080,
    'haproxy.ports.https': 8443,
  },
  'the real Dataplane API': { 'haproxy.dataplane.mode': 'dataplaneapi' },
  'webhook off': { 'webhook.enabled': false },
  'load balancer, cert-manager, monitoring': {
    'haproxy.service.type': 'LoadBalancer',
    'webhook.enabled': true,
    'webhook.certManager.enabled': true,
    'metrics.serviceMonitor.enabled': true,
    'metrics.prometheusRule.enabled': true,
    'metrics.dashboard.enabled': true,
    'ingressClass.default': true,
  },
  'existing secret, no policies, no PDBs': {
    'credentials.existingSecret': 'my-credentials',
    'networkPolicy.enabled': false,
    'controller.podDisruptionBudget.enabled': false,
    'haproxy.podDisruptionBudget.enabled': false,
    'controller.config.validationTests': true,
  },
};

const kindsAndNames = (ms: readonly Manifest[]) =>
  ms.map((m) => `${m.kind}/${m.metadata.name}`).sort();

const container = (d: Manifest, name: string) =>
  (d.spec.template.spec.containers as Manifest[]).find((c) => c.name === name)!;

describe('helm template of the chart', () => {
  it('passes helm lint, also with --strict and with every value set', () => {
    // Offline (no cluster to read a password from), lint needs the credentials named.
    const password = ['--set', `credentials.password=${TEST_PASSWORD}`];
    const lint = runHelm(['lint', chartDir, '--strict', ...password]);
    expect(lint.stdout + lint.stderr).toContain('0 chart(s) failed');
    expect(lint.code).toBe(0);
    for (const values of Object.values(VALUE_SETS)) {
      const sets = Object.entries(values).flatMap(([k, v]) => ['--set', `${k}=${String(v)}`]);
      expect(runHelm(['lint', chartDir, ...password, ...sets]).code).toBe(0);
    }
  });

  it('renders the seed topology with default values', () => {
    const ms = template();
    expect(kindsAndNames(ms)).toEqual([
      'ClusterRole/edge-haptic-controller',
      'ClusterRoleBinding/edge-haptic-controller',
      'ConfigMap/edge-haptic-haproxy',
      'Deployment/edge-haptic-controller',
      'Deployment/edge-haptic-haproxy',
      'HAProxyTemplateConfig/edge-haptic',
      'IngressClass/edge-haptic',
      'NetworkPolicy/edge-haptic-controller',
      'NetworkPolicy/edge-haptic-haproxy',
      'PodDisruptionBudget/edge-haptic-controller',
      'PodDisruptionBudget/edge-haptic-haproxy',
      'Role/edge-haptic-controller',
      'RoleBinding/edge-haptic-controller',
      'Secret/edge-haptic-credentials',
      'Secret/edge-haptic-webhook-tls',
      'Service/edge-haptic-controller',
      'Service/edge-haptic-haproxy',
      'ServiceAccount/edge-haptic-controller',
      'ValidatingWebhookConfiguration/edge-haptic-webhook',
    ]);
    // With the webhook off, neither its configuration nor its certificate is rendered.
    const off = kindsAndNames(template({ 'webhook.enabled': false }));
    expect(off).not.toContain('ValidatingWebhookConfiguration/edge-haptic-webhook');
    expect(off).not.toContain('Secret/edge-haptic-webhook-tls');
    for (const m of ms.filter(
      (m) =>
        !m.kind.startsWith('Cluster') &&
        !['IngressClass', 'ValidatingWebhookConfiguration'].includes(m.kind),
    ))
      expect(m.metadata.namespace, `${m.kind} ${m.metadata.name}`).toBe('haptic');
  });

  it.each(Object.keys(VALUE_SETS))(
    'renders manifests the Kubernetes models accept: %s',
    async (set) => {
      const ms = template(VALUE_SETS[set]);
      const checked = ms.filter(
        (m) => m.kind !== 'HAProxyTemplateConfig' && !m.apiVersion.startsWith('cert-manager.io/'),
      );
      expect(checked.length).toBeGreaterThan(10);
      const found = (await Promise.all(checked.map(problems))).filter((p) => p !== '');
      expect(found).toEqual([]);
    },
  );

  it('the models refuse a broken manifest (the check above can fail)', async () => {
    const d = structuredClone(find(template(), 'Deployment', 'edge-haptic-controller'));
    d.spec.replicas = 'two';
    expect(await problems(d)).toMatch(/replicas must be integer/);
  });

  it('names objects <release>-haptic unless the release name contains haptic', () => {
    const ms = template({}, { release: 'haptic' });
    expect(kindsAndNames(ms)).toContain('Deployment/haptic-controller');
    expect(kindsAndNames(ms)).toContain('Deployment/haptic-haproxy');
    expect(kindsAndNames(ms)).toContain('HAProxyTemplateConfig/haptic');
    expect(kindsAndNames(template({}, { release: 'my-haptic-edge' }))).toContain(
      'Deployment/my-haptic-edge-haproxy',
    );
  });

  it('gives each release its own IngressClass and controller name, used by the config', () => {
    const a = template({}, { release: 'a' });
    const b = template({}, { release: 'b', namespace: 'other' });
    const classA = find(a, 'IngressClass', 'a-haptic');
    const classB = find(b, 'IngressClass', 'b-haptic');
    expect(classA.spec.controller).toBe('haproxy-haptic.org/haptic.a-haptic');
    expect(classB.spec.controller).toBe('haproxy-haptic.org/other.b-haptic');
    const cfg = find(a, 'HAProxyTemplateConfig', 'a-haptic');
    expect(cfg.spec.templatingSettings.extraContext.controller_name).toBe(classA.spec.controller);
    // Cluster-scoped objects never collide between releases.
    const clusterScoped = (ms: Manifest[]) =>
      ms
        .filter((m) => m.metadata.namespace === undefined)
        .map((m) => `${m.kind}/${m.metadata.name}`);
    expect(clusterScoped(a).filter((n) => clusterScoped(b).includes(n))).toEqual([]);
  });

  it('runs the controller pair as the design says', () => {
    const d = find(template(), 'Deployment', 'edge-haptic-controller');
    expect(d.spec.replicas).toBe(2);
    const pod = d.spec.template.spec;
    expect(pod.securityContext.runAsNonRoot).toBe(true);
    const c = container(d, 'controller');
    expect(c.args).toEqual(
      expect.arrayContaining(['run', '--config=edge-haptic', '--identity=$(POD_NAME)']),
    );
    expect(c.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'health' });
    expect(c.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'health' });
    expect(c.ports.find((p: Manifest) => p.name === 'health').containerPort).toBe(8080);
    expect(c.securityContext).toMatchObject({
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
    });
    expect(c.resources).toEqual({
      requests: { cpu: '100m', memory: '512Mi' },
      limits: { memory: '512Mi' },
    });
    expect(c.volumeMounts).toContainEqual({ name: 'tmp', mountPath: '/tmp' });
    expect(pod.volumes.find((v: Manifest) => v.name === 'tmp').emptyDir).toBeDefined();
    // The webhook is on by default, served by every replica; a stopping replica keeps answering
    // until the endpoints drop it (preStop), within the grace period.
    expect(c.args).toEqual(
      expect.arrayContaining([
        '--webhook-port=9443',
        '--webhook-cert-dir=/var/run/haptic/webhook-tls',
      ]),
    );
    expect(c.lifecycle.preStop).toEqual({ sleep: { seconds: 5 } });
    expect(pod.terminationGracePeriodSeconds).toBeGreaterThan(5);
    const noDrain = find(
      template({ 'controller.drainSeconds': 0 }),
      'Deployment',
      'edge-haptic-controller',
    );
    expect(container(noDrain, 'controller').lifecycle).toBeUndefined();
    const svc = find(template(), 'Service', 'edge-haptic-controller');
    expect(svc.spec.ports.map((p: Manifest) => p.port)).toEqual([8080, 9090, 9443]);
    const cfg = find(template(), 'HAProxyTemplateConfig', 'edge-haptic');
    expect(cfg.spec.controller.leaderElection).toMatchObject({
      enabled: true,
      leaseName: 'edge-haptic-controller',
    });
  });

  it('derives least-privilege RBAC from the watched resources', () => {
    const ms = template();
    const cfg = find(ms, 'HAProxyTemplateConfig', 'edge-haptic');
    const role = find(ms, 'ClusterRole', 'edge-haptic-controller');
    const readable = (role.rules as Manifest[])
      .filter((r) => r.verbs.includes('watch'))
      .flatMap((r) => (r.resources as string[]).map((res) => `${r.apiGroups[0]}/${res}`))
      .sort();
    const watched = Object.values(cfg.spec.watchedResources as Record<string, Manifest>)
      .map((w) => `${w.apiVersion.includes('/') ? w.apiVersion.split('/')[0] : ''}/${w.resources}`)
      .sort();
    expect(readable).toEqual(watched);
    for (const rule of role.rules as Manifest[]) expect(rule.verbs).not.toContain('*');
    const writes = (role.rules as Manifest[])
      .filter((r) => !r.verbs.includes('watch'))
      .flatMap((r) => r.resources);
    // nodes: read (get, list) for the NodePort address Ingress status names
    expect(writes.sort()).toEqual([
      'customresourcedefinitions',
      'events',
      'events',
      'ingresses/status',
      'nodes',
    ]);
    // the CRD check at start reads one CRD by name, nothing more
    expect(
      (role.rules as Manifest[]).find((r) => r.resources.includes('customresourcedefinitions')),
    ).toEqual({
      apiGroups: ['apiextensions.k8s.io'],
      resources: ['customresourcedefinitions'],
      resourceNames: ['haproxytemplateconfigs.haproxy-haptic.org'],
      verbs: ['get'],
    });
    const ns = find(ms, 'Role', 'edge-haptic-controller');
    expect((ns.rules as Manifest[]).flatMap((r) => r.resources).sort()).toEqual([
      'haproxytemplateconfigs',
      'haproxytemplateconfigs/status',
      'leases',
      'pods',
      'secrets',
      'secrets', // create/update: the self-signed default certificate's Secret
    ]);
  });

  it('lets the gateway-api library keep Services per Gateway in the release namespace only', () => {
    const writes = (ms: Manifest[], kind: string) =>
      (find(ms, kind, 'edge-haptic-controller').rules as Manifest[])
        .filter((r) => r.apiGroups[0] === '' && (r.resources as string[]).includes('services'))
        .flatMap((r) => r.verbs as string[])
        .filter((v) => !['get', 'list', 'watch'].includes(v))
        .sort();
    const gw = template({ 'controller.config.library': 'gateway-api' });
    expect(writes(gw, 'Role')).toEqual(['create', 'delete', 'patch', 'update']);
    expect(writes(gw, 'ClusterRole')).toEqual([]);
    expect(writes(template(), 'Role')).toEqual([]);
  });

  it('has two webhook entries whose caBundle signs the Service certificate', () => {
    const defaults = find(template(), 'ValidatingWebhookConfiguration', 'edge-haptic-webhook');
    // Ignore by default for both: a controller that is down blocks no one.
    expect((defaults.webhooks as Manifest[]).map((w) => w.failurePolicy)).toEqual([
      'Ignore',
      'Ignore',
    ]);
    const ms = template({
      'webhook.failurePolicy': 'Fail',
      'webhook.timeoutSeconds': 5,
      'webhook.namespaceSelector.matchLabels.team': 'web',
    });
    const vwc = find(ms, 'ValidatingWebhookConfiguration', 'edge-haptic-webhook');
    const [resources, config] = vwc.webhooks as Manifest[];
    expect(resources!.failurePolicy).toBe('Fail');
    expect(resources!.timeoutSeconds).toBe(5);
    expect(resources!.rules).toEqual([
      {
        apiGroups: ['networking.k8s.io'],
        apiVersions: ['v1'],
        resources: ['ingresses'],
        operations: ['CREATE', 'UPDATE'],
        scope: '*',
      },
    ]);
    // The operator's selector, and never kube-system nor the release namespace.
    expect(resources!.namespaceSelector).toEqual({
      matchLabels: { team: 'web' },
      matchExpressions: [
        {
          key: 'kubernetes.io/metadata.name',
          operator: 'NotIn',
          values: ['kube-system', 'haptic'],
        },
      ],
    });
    expect(resources!.matchConditions).toHaveLength(1);
    expect(resources!.matchConditions[0].expression).toContain('"edge-haptic"');
    expect(config!.failurePolicy).toBe('Ignore');
    expect(config!.rules[0].resources).toEqual(['haproxytemplateconfigs']);
    expect(resources!.clientConfig.service).toMatchObject({
      name: 'edge-haptic-controller',
      namespace: 'haptic',
      port: 9443,
    });
    const tls = find(ms, 'Secret', 'edge-haptic-webhook-tls');
    expect(config!.clientConfig.caBundle).toBe(tls.data['ca.crt']);
    const ca = new X509Certificate(Buffer.from(tls.data['ca.crt'], 'base64'));
    const cert = new X509Certificate(Buffer.from(tls.data['tls.crt'], 'base64'));
    expect(cert.verify(ca.publicKey)).toBe(true);
    expect(cert.subjectAltName).toContain('DNS:edge-haptic-controller.haptic.svc');
    // The controller pods restart when the certificate changes.
    const d = find(ms, 'Deployment', 'edge-haptic-controller');
    expect(d.spec.template.metadata.annotations['checksum/webhook-tls']).toMatch(/^[0-9a-f]{64}$/);
  });

  it('takes the webhook certificate from cert-manager when asked', () => {
    const ms = template({ 'webhook.certManager.enabled': true });
    const vwc = find(ms, 'ValidatingWebhookConfiguration', 'edge-haptic-webhook');
    expect(vwc.metadata.annotations['cert-manager.io/inject-ca-from']).toBe(
      'haptic/edge-haptic-webhook-tls',
    );
    expect((vwc.webhooks as Manifest[])[0]!.clientConfig.caBundle).toBeUndefined();
    expect(find(ms, 'Certificate', 'edge-haptic-webhook-tls').spec.secretName).toBe(
      'edge-haptic-webhook-tls',
    );
    expect(kindsAndNames(ms)).not.toContain('Secret/edge-haptic-webhook-tls');
  });

  it('writes the credentials Secret unless an existing Secret is named', () => {
    const s = find(template(), 'Secret', 'edge-haptic-credentials');
    expect(Buffer.from(s.data.dataplane_username, 'base64').toString()).toBe('admin');
    expect(Buffer.from(s.data.dataplane_password, 'base64').toString()).toBe(TEST_PASSWORD);
    const ms = template({ 'credentials.existingSecret': 'mine' });
    // Only the webhook's certificate is left among the Secrets: no credentials are generated.
    expect(ms.filter((m) => m.kind === 'Secret').map((m) => m.metadata.name)).toEqual([
      'edge-haptic-webhook-tls',
    ]);
    expect(find(ms, 'HAProxyTemplateConfig', 'edge-haptic').spec.credentialsSecretRef).toEqual({
      name: 'mine',
      namespace: 'haptic',
    });
    const haproxy = find(ms, 'Deployment', 'edge-haptic-haproxy');
    expect(
      haproxy.spec.template.spec.volumes.find((v: Manifest) => v.name === 'credentials').secret
        .secretName,
    ).toBe('mine');
  });
});
