/* eslint-disable @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-unsafe-argument -- rendered manifests are untyped YAML; the assertions check their shape */
import { describe, expect, it } from 'vitest';
import { agentPaths } from '../../../apps/agent/src/haproxy/haproxy-paths.js';
import { chartDir, find, runHelm, template, type Manifest } from './helm.js';

/** The agent's layout in the pod: its config dir, attached to the master socket on the shared volume. */
const paths = agentPaths('/etc/haproxy', '/var/run/haproxy/master.sock');

const container = (d: Manifest, name: string) =>
  (d.spec.template.spec.containers as Manifest[]).find((c) => c.name === name)!;
const port = (c: Manifest, name: string) =>
  (c.ports as Manifest[]).find((p) => p.name === name)?.containerPort as number | undefined;

/** Label selector matchLabels ⊆ labels. */
const matches = (selector: Record<string, string>, labels: Record<string, string>) =>
  Object.entries(selector).every(([k, v]) => labels[k] === v);

describe('the HAProxy pods of the chart', () => {
  it("runs HAProxy (haptic's HAProxy image, the version the tests run) and haptic's agent attached to it by default", () => {
    const ms = template();
    const d = find(ms, 'Deployment', 'edge-haptic-haproxy');
    expect(d.spec.replicas).toBe(2);
    const haproxy = container(d, 'haproxy');
    const agent = container(d, 'dataplane');
    expect(haproxy.image).toBe('ghcr.io/haproxy-haptic/haproxy:3.0.11');
    // The image's entrypoint (tini -- haproxy) runs HAProxy in master-worker mode, its master
    // socket on the volume shared with the agent, the agent's fragment after haproxy.cfg.
    expect(haproxy.command).toBeUndefined();
    expect(haproxy.args).toEqual([
      '-W',
      '-db',
      '-S',
      '/var/run/haproxy/master.sock,mode,600',
      '-f',
      '/etc/haproxy/haproxy.cfg',
      '-f',
      paths.fragmentFile,
    ]);
    expect(haproxy.workingDir).toBe('/etc/haproxy');
    expect(agent.image).toBe('ghcr.io/haproxy-haptic/haptic:0.1.0');
    expect(agent.args).toContain(`--master-socket=${paths.masterSocket}`);
    for (const c of [haproxy, agent])
      expect(c.volumeMounts).toContainEqual({ name: 'haproxy-run', mountPath: '/var/run/haproxy' });
    expect(haproxy.resources).toEqual({
      requests: { cpu: '50m', memory: '256Mi' },
      limits: { memory: '256Mi' },
    });
    expect(haproxy.securityContext.capabilities).toEqual({
      drop: ['ALL'],
      add: ['NET_BIND_SERVICE'],
    });
    // Only HAProxy binds ports below 1024.
    expect(agent.securityContext.capabilities).toEqual({ drop: ['ALL'] });
    expect(d.spec.template.spec.securityContext.runAsNonRoot).toBe(true);
    expect(find(ms, 'ConfigMap', 'edge-haptic-haproxy').data['dataplaneapi.yaml']).toBeUndefined();
  });

  it('runs the real Dataplane API sidecar in dataplaneapi mode, both containers from its image', () => {
    const ms = template({ 'haproxy.dataplane.mode': 'dataplaneapi' });
    const d = find(ms, 'Deployment', 'edge-haptic-haproxy');
    const haproxy = container(d, 'haproxy');
    const dataplane = container(d, 'dataplane');
    expect([haproxy.image, dataplane.image]).toEqual([
      'haproxytech/haproxy-debian:3.2',
      'haproxytech/haproxy-debian:3.2',
    ]);
    expect(haproxy.command.slice(0, 3)).toEqual(['haproxy', '-W', '-db']);
    expect(dataplane.command).toEqual(['dataplaneapi']);
    // The sidecar's settings: the explicit reload delay, reloads through the master socket.
    const cm = find(ms, 'ConfigMap', 'edge-haptic-haproxy');
    expect(cm.data['dataplaneapi.yaml']).toMatch(/reload_delay: 1\n/);
    expect(cm.data['dataplaneapi.yaml']).toContain('master_runtime: /var/run/haproxy/master.sock');
    expect(haproxy.command).toContain('/var/run/haproxy/master.sock,mode,600');
    const [init] = d.spec.template.spec.initContainers as Manifest[];
    expect(init!.command).toEqual(['/bin/sh', '/etc/haptic/haproxy/bootstrap.sh']);
    expect(init!.image).toBe('haproxytech/haproxy-debian:3.2');
  });

  it('seeds the shared /etc/haproxy with a bootstrap config that serves only :8404 and is not ready', () => {
    const ms = template();
    const d = find(ms, 'Deployment', 'edge-haptic-haproxy');
    const [init] = d.spec.template.spec.initContainers as Manifest[];
    // haptic agent --prepare writes haproxy.cfg and the agent fragment before HAProxy starts.
    expect(init!.name).toBe('prepare');
    expect(init!.image).toBe('ghcr.io/haproxy-haptic/haptic:0.1.0');
    expect(init!.args).toEqual([
      'agent',
      '--prepare',
      '--config-dir=/etc/haproxy',
      `--master-socket=${paths.masterSocket}`,
      '--bootstrap-config=/etc/haptic/haproxy/haproxy.cfg',
    ]);
    for (const c of [init!, container(d, 'haproxy'), container(d, 'dataplane')])
      expect(c.volumeMounts).toContainEqual({ name: 'haproxy-config', mountPath: '/etc/haproxy' });
    expect(d.spec.template.spec.volumes.find((v: Manifest) => v.name === 'haproxy-config')).toEqual(
      { name: 'haproxy-config', emptyDir: {} },
    );
    const cm = find(ms, 'ConfigMap', 'edge-haptic-haproxy');
    const cfg = cm.data['haproxy.cfg'] as string;
    expect(cfg.match(/^\s*bind .*$/gm)).toEqual(['  bind "${POD_IP}:8404"']);
    expect(cfg).toContain('if { path /healthz }');
    expect(cfg).not.toContain('/ready');
    expect(cm.data['bootstrap.sh']).toBeUndefined();
  });

  it('makes HAProxy ready only on /ready, the Dataplane container as soon as its API answers', () => {
    const d = find(template(), 'Deployment', 'edge-haptic-haproxy');
    expect(container(d, 'haproxy').readinessProbe.httpGet).toEqual({
      path: '/ready',
      port: 'stats',
    });
    expect(container(d, 'dataplane').readinessProbe.tcpSocket).toEqual({ port: 'dataplane' });
    expect(container(d, 'haproxy').lifecycle.preStop).toEqual({ sleep: { seconds: 5 } });
  });

  it('labels the pods so that the config podSelector and the Service select them', () => {
    const ms = template();
    const labels = find(ms, 'Deployment', 'edge-haptic-haproxy').spec.template.metadata.labels;
    expect(labels['app.kubernetes.io/component']).toBe('loadbalancer');
    const selector = find(ms, 'HAProxyTemplateConfig', 'edge-haptic').spec.podSelector;
    expect(selector.matchLabels['app.kubernetes.io/component']).toBe('loadbalancer');
    expect(matches(selector.matchLabels, labels)).toBe(true);
    expect(matches(find(ms, 'Service', 'edge-haptic-haproxy').spec.selector, labels)).toBe(true);
    // Another release's pods are not this release's.
    const other = find(template({}, { release: 'other' }), 'Deployment', 'other-haptic-haproxy');
    expect(matches(selector.matchLabels, other.spec.template.metadata.labels)).toBe(false);
  });

  it('binds haproxy.ports through the config, the containers and the Service', () => {
    for (const [http, https] of [
      [80, 443],
      [8080, 8443],
    ] as const) {
      const ms = template({ 'haproxy.ports.http': http, 'haproxy.ports.https': https });
      const extra = find(ms, 'HAProxyTemplateConfig', 'edge-haptic').spec.templatingSettings
        .extraContext;
      expect([extra.http_port, extra.https_port, extra.stats_port]).toEqual([http, https, 8404]);
      const haproxy = container(find(ms, 'Deployment', 'edge-haptic-haproxy'), 'haproxy');
      expect([port(haproxy, 'http'), port(haproxy, 'https')]).toEqual([http, https]);
      const svc = find(ms, 'Service', 'edge-haptic-haproxy');
      expect(svc.spec.type).toBe('NodePort');
      expect(svc.spec.ports.map((p: Manifest) => [p.port, p.targetPort])).toEqual([
        [80, 'http'],
        [443, 'https'],
      ]);
    }
    const lb = find(
      template({ 'haproxy.service.type': 'LoadBalancer', 'haproxy.service.nodePorts.http': 30080 }),
      'Service',
      'edge-haptic-haproxy',
    );
    expect(lb.spec.type).toBe('LoadBalancer');
    expect(lb.spec.ports[0].nodePort).toBe(30080);
  });

  it('passes haproxy.service.externalTrafficPolicy to the Service: Cluster by default, Local on request', () => {
    const policy = (values: Record<string, string>) =>
      find(template(values), 'Service', 'edge-haptic-haproxy').spec.externalTrafficPolicy;
    expect(policy({})).toBe('Cluster');
    expect(policy({ 'haproxy.service.externalTrafficPolicy': 'Local' })).toBe('Local');
    expect(
      policy({
        'haproxy.service.type': 'LoadBalancer',
        'haproxy.service.externalTrafficPolicy': 'Local',
      }),
    ).toBe('Local');
  });

  it.each(['ingress', 'ingress-nginx', 'gateway-api'])(
    'passes haproxy.proxyProtocol to the %s library (off by default) and the library writes it',
    (library) => {
      const extra = (values: Record<string, string | boolean>) => {
        const config = find(
          template({ 'controller.config.library': library, ...values }),
          'HAProxyTemplateConfig',
          'edge-haptic',
        );
        return config.spec.templatingSettings.extraContext;
      };
      const off = extra({});
      expect(off.proxy_protocol).toBe(false);
      expect(off.proxy_protocol_trusted).toEqual([]);
      const on = extra({
        'haproxy.proxyProtocol.enabled': true,
        'haproxy.proxyProtocol.trustedCidrs[0]': '10.0.0.0/8',
        'haproxy.proxyProtocol.trustedCidrs[1]': 'fd00::/8',
      });
      expect(on.proxy_protocol).toBe(true);
      expect(on.proxy_protocol_trusted).toEqual(['10.0.0.0/8', 'fd00::/8']);
      // The library's template reads both settings (the line itself is checked by its tests).
      const config = find(
        template({ 'controller.config.library': library }),
        'HAProxyTemplateConfig',
        'edge-haptic',
      );
      const texts = [
        config.spec.haproxyConfig.template,
        ...Object.values(config.spec.templateSnippets as Record<string, { template: string }>).map(
          (t) => t.template,
        ),
      ].join('\n');
      expect(texts).toContain('extra.proxy_protocol == true');
      expect(texts).toContain('extra.proxy_protocol_trusted');
      expect(texts).toMatch(/include "proxy-protocol"/);
    },
  );

  it('passes controller.defaultCertificate as the library default_certificate; refuses it where the library has none', () => {
    const extra = (values: Record<string, string | boolean>) =>
      find(template(values), 'HAProxyTemplateConfig', 'edge-haptic').spec.templatingSettings
        .extraContext;
    // Unset: the Secret the controller keeps its self-signed certificate in (below).
    expect(extra({}).default_certificate).toBe('haptic/edge-haptic-default-tls');
    expect(extra({ 'controller.selfSignedCertificate.enabled': false }).default_certificate).toBe(
      '',
    );
    expect(
      extra({ 'controller.defaultCertificate': 'infra/wildcard-tls' }).default_certificate,
    ).toBe('infra/wildcard-tls');
    expect(
      extra({
        'controller.config.library': 'ingress-nginx',
        'controller.defaultCertificate': 'infra/w',
      }).default_certificate,
    ).toBe('infra/w');
    // An operator's own extraContext setting stays when the chart value is empty.
    expect(
      extra({ 'controller.config.extraContext.default_certificate': 'a/b' }).default_certificate,
    ).toBe('a/b');
    const gateway = runHelm([
      'template',
      'edge',
      chartDir,
      '--set',
      'credentials.password=x',
      '--set',
      'controller.config.library=gateway-api',
      '--set',
      'controller.defaultCertificate=infra/w',
    ]);
    expect(gateway.code).not.toBe(0);
    expect(gateway.stderr).toContain(
      'controller.defaultCertificate: the library "gateway-api" has no default_certificate setting',
    );
  });

  it('has the controller keep a self-signed default certificate only where the config names no other, with the Role to write it', () => {
    const controllerArgs = (ms: Manifest[]) =>
      container(find(ms, 'Deployment', 'edge-haptic-controller'), 'controller').args as string[];
    const writesSecrets = (ms: Manifest[]) =>
      (find(ms, 'Role', 'edge-haptic-controller').rules as Manifest[]).some(
        (r) => r.resources.includes('secrets') && r.verbs.includes('create'),
      );
    const flag = '--self-signed-certificate=haptic/edge-haptic-default-tls';
    for (const library of ['ingress', 'ingress-nginx']) {
      const ms = template({ 'controller.config.library': library });
      expect(controllerArgs(ms), library).toContain(flag);
      expect(writesSecrets(ms), library).toBe(true);
    }
    for (const values of [
      { 'controller.defaultCertificate': 'infra/wildcard-tls' },
      { 'controller.config.extraContext.default_certificate': 'a/b' },
      { 'controller.selfSignedCertificate.enabled': false },
      { 'controller.config.library': 'gateway-api' },
    ]) {
      const ms = template(values);
      const said = JSON.stringify(values);
      expect(
        controllerArgs(ms).filter((a) => a.startsWith('--self-signed')),
        said,
      ).toEqual([]);
      expect(writesSecrets(ms), said).toBe(false);
    }
  });

  it('runs haptic agent with no reload delay (whatever the sidecar is given) and the password as a file', () => {
    const ms = template({ 'haproxy.dataplane.reloadDelaySeconds': 2 });
    const d = find(ms, 'Deployment', 'edge-haptic-haproxy');
    const agent = container(d, 'dataplane');
    expect(agent.args).toEqual([
      'agent',
      '--config-dir=/etc/haproxy',
      `--master-socket=${paths.masterSocket}`,
      '--port=5555',
      '--address=0.0.0.0',
      '--username=$(DATAPLANE_USERNAME)',
      '--password-file=/var/run/haptic/credentials/dataplane_password',
      '--reload-delay=0', // synchronous through the master socket (issue 37)
    ]);
    // HAProxy runs in /etc/haproxy: the config names storage relative to it.
    const dataplane = find(ms, 'HAProxyTemplateConfig', 'edge-haptic').spec.dataplane;
    expect([dataplane.mapsDir, dataplane.sslCertsDir, dataplane.generalStorageDir]).toEqual([
      'maps',
      'ssl',
      'general',
    ]);
    const real = template({ 'haproxy.dataplane.mode': 'dataplaneapi' });
    expect(find(real, 'HAProxyTemplateConfig', 'edge-haptic').spec.dataplane.mapsDir).toBe(
      undefined,
    );
    expect(agent.volumeMounts).toContainEqual({
      name: 'credentials',
      mountPath: '/var/run/haptic/credentials',
      readOnly: true,
    });
  });

  it('limits traffic with NetworkPolicies: controller to 5555, API server to 9443, Prometheus to 9090 and 8404', () => {
    const ms = template();
    const ports = (np: Manifest) =>
      (np.spec.ingress as Manifest[]).map((r) => (r.ports as Manifest[]).map((p) => p.port));
    const haproxy = find(ms, 'NetworkPolicy', 'edge-haptic-haproxy');
    expect(ports(haproxy)).toEqual([[80, 443], [5555], [8404]]);
    expect(
      haproxy.spec.ingress[1].from[0].podSelector.matchLabels['app.kubernetes.io/component'],
    ).toBe('controller');
    expect(ports(find(ms, 'NetworkPolicy', 'edge-haptic-controller'))).toEqual([[9443], [9090]]);
  });

  it('protects both Deployments with PodDisruptionBudgets', () => {
    const ms = template();
    expect(find(ms, 'PodDisruptionBudget', 'edge-haptic-controller').spec.minAvailable).toBe(1);
    expect(find(ms, 'PodDisruptionBudget', 'edge-haptic-haproxy').spec.maxUnavailable).toBe(1);
  });
});
