import { get, host, ingress, type CaseTools, type NginxCase } from './cases.js';

const dupHost = host('duplicate');

/**
 * The older Ingress is served; the newer one with the same host and path is either refused by the
 * webhook (ingress-nginx's admission answer) or accepted and left out for that path. Either way
 * the older's backend answers every request, checked once the newer's own path is served (when
 * it was accepted) so the judgement sees both Ingresses.
 */
async function oldestWins(t: CaseTools): Promise<string | undefined> {
  // creationTimestamp has second resolution: the newer is created in a later second
  await new Promise((r) => setTimeout(r, 1100));
  const newer = ingress('duplicate-newer', dupHost, [
    ['/', 'echo-b'],
    ['/newer-only', 'echo-b'],
  ]);
  const refused = await t.apply([newer]).then(
    () => undefined,
    (e: unknown) => (e instanceof Error ? e.message : String(e)),
  );
  if (refused === undefined) {
    const why = await t.served({
      req: get(dupHost, '/newer-only'),
      expect: { status: 200, service: 'echo-b' },
    });
    if (why) return `the newer Ingress's own path: ${why}`;
  } else if (!/duplicate-older|already/i.test(refused))
    return `the newer Ingress was refused without naming the older: ${refused}`;
  for (let i = 0; i < 4; i++) {
    const why = await t.check({
      req: get(dupHost, '/', { headers: { 'X-Try': String(i) } }),
      expect: { status: 200, service: 'echo' },
    });
    if (why) return `host and path of both Ingresses: ${why}`;
  }
  return undefined;
}

/** Routing as ingress-nginx merges hosts and paths (run on every HAProxy major asked for). */
export const CORE_CASES: readonly NginxCase[] = [
  {
    name: 'routing: a host rule serves its host only',
    annotations: [],
    core: true,
    objects: [ingress('host-rule', host('host-rule'), [['/']])],
    steps: [
      {
        req: get(host('host-rule'), '/anything?q=1'),
        expect: {
          status: 200,
          service: 'echo',
          path: '/anything?q=1',
          backendHost: host('host-rule'),
        },
      },
      { req: get(host('no-such-host')), expect: { status: 404 } },
    ],
  },
  {
    name: 'routing: Prefix matches whole path elements, Exact only its path, ImplementationSpecific as Prefix',
    annotations: [],
    core: true,
    objects: [
      ingress('paths', host('paths'), [
        ['/'],
        ['/app', 'echo-b'],
        ['/exact', 'echo-b', 'Exact'],
        ['/impl', 'echo-b', 'ImplementationSpecific'],
      ]),
    ],
    steps: [
      {
        req: get(host('paths'), '/app/x'),
        expect: { status: 200, service: 'echo-b', path: '/app/x' },
      },
      { req: get(host('paths'), '/app'), expect: { service: 'echo-b' } },
      { req: get(host('paths'), '/appx'), expect: { service: 'echo', path: '/appx' } },
      { req: get(host('paths'), '/exact'), expect: { service: 'echo-b' } },
      { req: get(host('paths'), '/exact/sub'), expect: { service: 'echo' } },
      { req: get(host('paths'), '/impl/x'), expect: { service: 'echo-b' } },
      { req: get(host('paths'), '/other'), expect: { service: 'echo' } },
    ],
  },
  {
    name: 'routing: several Ingresses of one host are merged into one server',
    annotations: [],
    core: true,
    objects: [
      ingress('merge-a', host('merge'), [['/a', 'echo']]),
      ingress('merge-b', host('merge'), [['/b', 'echo-b']]),
    ],
    steps: [
      { req: get(host('merge'), '/b'), expect: { status: 200, service: 'echo-b' } },
      { req: get(host('merge'), '/a/1'), expect: { status: 200, service: 'echo', path: '/a/1' } },
      { req: get(host('merge'), '/c'), expect: { status: 404 } },
    ],
  },
  {
    name: 'routing: a duplicate host and path keeps the oldest Ingress',
    annotations: [],
    core: true,
    objects: [ingress('duplicate-older', dupHost, [['/', 'echo']])],
    steps: [{ req: get(dupHost, '/'), expect: { status: 200, service: 'echo' } }],
    script: oldestWins,
  },
];
