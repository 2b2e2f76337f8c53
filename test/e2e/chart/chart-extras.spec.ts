/* eslint-disable @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return -- rendered manifests are untyped YAML */
import { describe, expect, it } from 'vitest';
import { find, runHelm, chartDir, template, type Manifest } from './helm.js';

const controller = (ms: Manifest[]) =>
  find(ms, 'Deployment', 'edge-haptic-controller').spec.template.spec;

describe('controller extras and RBAC rules operators add', () => {
  it('passes extraArgs, extraEnv, extraVolumes and extraVolumeMounts to the controller (a --module from a ConfigMap)', () => {
    const ms = template({
      'controller.extraArgs[0]': '--module=/app/modules/team.mjs',
      'controller.extraEnv[0].name': 'TEAM_REGION',
      'controller.extraEnv[0].value': 'eu-west-1',
      'controller.extraVolumes[0].name': 'modules',
      'controller.extraVolumes[0].configMap.name': 'haptic-modules',
      'controller.extraVolumeMounts[0].name': 'modules',
      'controller.extraVolumeMounts[0].mountPath': '/app/modules',
    });
    const pod = controller(ms);
    const c = pod.containers[0];
    expect(c.args.at(-1)).toBe('--module=/app/modules/team.mjs');
    expect(c.args[0]).toBe('run');
    expect(c.env).toContainEqual({ name: 'TEAM_REGION', value: 'eu-west-1' });
    expect(c.volumeMounts).toContainEqual({ name: 'modules', mountPath: '/app/modules' });
    expect(pod.volumes).toContainEqual({ name: 'modules', configMap: { name: 'haptic-modules' } });
    // Defaults add nothing.
    const plain = controller(template()).containers[0];
    expect(plain.args.some((a: string) => a.startsWith('--module'))).toBe(false);
  });

  it('refuses an extra argument that is not a flag, and a mount without a path', () => {
    const bad = (sets: string[]) =>
      runHelm([
        'template',
        'edge',
        chartDir,
        '--set',
        'credentials.password=x',
        ...sets.flatMap((s) => ['--set', s]),
      ]);
    const arg = bad(['controller.extraArgs[0]=module.mjs']);
    expect(arg.code).not.toBe(0);
    expect(arg.stderr).toMatch(/controller\/extraArgs\/0/);
    const mount = bad(['controller.extraVolumeMounts[0].name=m']);
    expect(mount.code).not.toBe(0);
    expect(mount.stderr).toMatch(/controller\/extraVolumeMounts\/0/);
  });

  it('adds rbac.extraRules to the ClusterRole after the rules derived from the config', () => {
    const role = (ms: Manifest[]) =>
      find(ms, 'ClusterRole', 'edge-haptic-controller').rules as Manifest[];
    const base = role(template());
    const ms = template({
      'rbac.extraRules[0].apiGroups[0]': '',
      'rbac.extraRules[0].resources[0]': 'configmaps',
      'rbac.extraRules[0].verbs[0]': 'get',
      'rbac.extraRules[0].verbs[1]': 'list',
      'rbac.extraRules[0].verbs[2]': 'watch',
    });
    expect(role(ms)).toEqual([
      ...base,
      { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch'] },
    ]);
    expect(base.some((r) => (r.resources as string[]).includes('configmaps'))).toBe(false);
  });

  it.each(['agent', 'dataplaneapi'])(
    'gives POD_IP from the downward API to every container of the HAProxy pod (%s mode): the config binds "${POD_IP}:<port>"',
    (mode) => {
      const pod = find(
        template({ 'haproxy.dataplane.mode': mode }),
        'Deployment',
        'edge-haptic-haproxy',
      ).spec.template.spec;
      const containers = pod.containers as Manifest[];
      expect(containers.length).toBeGreaterThan(1);
      for (const c of containers)
        expect(c.env, String(c.name)).toContainEqual({
          name: 'POD_IP',
          valueFrom: { fieldRef: { fieldPath: 'status.podIP' } },
        });
    },
  );

  it("turns HAProxy's prometheus-exporter on in the config and scrapes it with a PodMonitor", () => {
    const extra = (ms: Manifest[]) =>
      find(ms, 'HAProxyTemplateConfig', 'edge-haptic').spec.templatingSettings.extraContext;
    const ms = template({ 'metrics.serviceMonitor.enabled': true });
    expect(extra(ms).prometheus_exporter).toBe(true);
    expect(find(ms, 'PodMonitor', 'edge-haptic-haproxy').spec.podMetricsEndpoints).toEqual([
      { port: 'stats', path: '/metrics', interval: '30s' },
    ]);
    const off = template({
      'metrics.serviceMonitor.enabled': true,
      'metrics.haproxyExporter.enabled': false,
    });
    expect(extra(off).prometheus_exporter).toBe(false);
    expect(off.some((m) => m.kind === 'PodMonitor')).toBe(false);
  });

  it('needs Kubernetes 1.30 (webhook matchConditions, the preStop sleep action)', () => {
    const at = (v: string) =>
      runHelm([
        'template',
        'edge',
        chartDir,
        '--kube-version',
        v,
        '--set',
        'credentials.password=x',
      ]);
    const old = at('1.29.9');
    expect(old.code).not.toBe(0);
    expect(old.stderr).toContain('kubeVersion');
    expect(at('1.30.0').code).toBe(0);
  });
});
