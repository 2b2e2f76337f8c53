import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { KubeSim, type KubeObject } from '#testbed/kube-sim';
import { configWith, connect, converge } from './harness.js';

// The Ingress libraries' `secrets` resource, as the chart ships it, against kube-sim (which
// filters Secrets by `type` field selectors as the API server does): TLS Secrets and the Secrets
// annotations name (Opaque, basic-auth) are kept; Helm release Secrets, service-account tokens and
// image pull Secrets are never listed, watched or kept.
const secretsDef = (library: string): Record<string, unknown> => {
  const text = readFileSync(
    new URL(`../../../helm/haptic/libraries/${library}/library.yaml`, import.meta.url),
    'utf8',
  );
  const doc = parse(text) as { spec: { watchedResources: { secrets: Record<string, unknown> } } };
  return doc.spec.watchedResources.secrets;
};

const b64 = (s: string) => Buffer.from(s).toString('base64');
const secret = (
  name: string,
  type: string,
  data: Record<string, string>,
  more = {},
): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { namespace: 'apps', name, ...more },
  type,
  data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, b64(v)])),
});

const KEPT = [
  secret('site-tls', 'kubernetes.io/tls', { 'tls.crt': 'c', 'tls.key': 'k' }),
  secret('users', 'Opaque', { auth: 'alice:$apr1$x$y' }),
  secret('admin', 'kubernetes.io/basic-auth', { username: 'a', password: 'p' }),
];
const LEFT_OUT = [
  secret('sh.helm.release.v1.web.v1', 'helm.sh/release.v1', { release: 'H4sI…' }),
  secret(
    'builder-token',
    'kubernetes.io/service-account-token',
    {},
    {
      annotations: { 'kubernetes.io/service-account.name': 'builder' },
    },
  ),
  secret('pull', 'kubernetes.io/dockerconfigjson', { '.dockerconfigjson': '{"auths":{}}' }),
];

describe.each(['ingress', 'ingress-nginx'])(
  'the %s library watches only Secrets it can use',
  (library) => {
    let sim: KubeSim;
    beforeAll(async () => {
      sim = await KubeSim.start({ port: 0 });
      await sim.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'apps' } });
      await sim.apply([...KEPT, ...LEFT_OUT]);
    });
    afterAll(async () => {
      await sim.stop();
    });

    it('keeps TLS, Opaque and basic-auth Secrets, from the first list and from the watch', async () => {
      const { index, manager } = connect(sim);
      const names = async () =>
        (await index.snapshot())
          .list('secrets')
          .map((o) => o.metadata.name)
          .sort()
          .join(',');
      const seen = (want: string[]) =>
        converge(async () => {
          const got = await names();
          return got === [...want].sort().join(',') ? undefined : got;
        });
      try {
        await manager.apply(configWith({ secrets: secretsDef(library) }).spec, 'default');
        expect(await seen(['site-tls', 'users', 'admin'])).toBeUndefined();
        // Written while watching: the new release revision never arrives, the marker after it does.
        await sim.apply(
          secret('sh.helm.release.v1.web.v2', 'helm.sh/release.v1', { release: 'x' }),
        );
        await sim.apply(secret('marker', 'Opaque', { k: 'v' }));
        expect(await seen(['site-tls', 'users', 'admin', 'marker'])).toBeUndefined();
      } finally {
        await manager.stop();
      }
    });
  },
);
