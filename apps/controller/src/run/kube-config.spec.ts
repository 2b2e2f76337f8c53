import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  IN_CLUSTER_TOKEN,
  resolveKubeConfig,
  serverUrl,
  StartupConfigError,
} from './kube-config.js';

const dir = mkdtempSync(join(tmpdir(), 'haptic-kc-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const kubeconfig = (server: string) =>
  `apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "${server}"}}]\n` +
  'users: [{name: u, user: {token: t}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\n' +
  'current-context: x\n';

const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

const nothing = { env: {}, home: join(dir, 'home'), exists: existsSync };

describe('resolveKubeConfig', () => {
  it('refuses to start without credentials, naming every place it looked', () => {
    let error: unknown;
    try {
      resolveKubeConfig(nothing);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(StartupConfigError);
    expect((error as StartupConfigError).code).toBe('HAPTIC_STARTUP_CONFIG');
    const message = (error as Error).message;
    for (const place of [
      '--kubeconfig',
      '$KUBECONFIG',
      join(dir, 'home/.kube/config'),
      IN_CLUSTER_TOKEN,
    ])
      expect(message).toContain(place);
  });

  it('takes --kubeconfig first, and names it when it is missing or unreadable', () => {
    const good = file('good.yaml', kubeconfig('https://api.example:6443'));
    const kc = resolveKubeConfig({ ...nothing, kubeconfig: good, env: { KUBECONFIG: '/x' } });
    expect(serverUrl(kc)).toBe('https://api.example:6443');
    expect(() => resolveKubeConfig({ ...nothing, kubeconfig: join(dir, 'nope') })).toThrow(
      `--kubeconfig: ${join(dir, 'nope')} does not exist`,
    );
    const bad = file('bad.yaml', 'clusters: [');
    expect(() => resolveKubeConfig({ ...nothing, kubeconfig: bad, exists: () => true })).toThrow(
      StartupConfigError,
    );
    const noContext = file('empty.yaml', 'apiVersion: v1\nkind: Config\n');
    expect(() =>
      resolveKubeConfig({ ...nothing, kubeconfig: noContext, exists: () => true }),
    ).toThrow(/names no cluster/);
  });

  it('then $KUBECONFIG, then ~/.kube/config', () => {
    const env = file('env.yaml', kubeconfig('https://from-env:6443'));
    expect(
      serverUrl(resolveKubeConfig({ ...nothing, env: { KUBECONFIG: env }, exists: () => true })),
    ).toBe('https://from-env:6443');
    expect(() => resolveKubeConfig({ ...nothing, env: { KUBECONFIG: join(dir, 'gone') } })).toThrow(
      `$KUBECONFIG: ${join(dir, 'gone')} does not exist`,
    );
    const home = join(dir, 'h');
    mkdirSync(join(home, '.kube'), { recursive: true });
    const homeFile = file('h/.kube/config', kubeconfig('https://from-home:6443'));
    const kc = resolveKubeConfig({ env: {}, home, exists: (p) => p === homeFile });
    expect(serverUrl(kc)).toBe('https://from-home:6443');
  });
});
