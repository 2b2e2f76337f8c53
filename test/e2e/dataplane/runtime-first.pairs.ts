import type { DesiredServer, DesiredState } from './runtime-first.fixture.js';

/** One before/after pair: the change, and whether it is structural (reloads everywhere) or a certificate change (reloads only where the API has no runtime certificate endpoints). */
export interface Pair {
  readonly name: string;
  readonly change: (s: DesiredState) => DesiredState;
  readonly structural?: boolean;
  readonly cert?: boolean;
}

const app = (s: DesiredState, name: string, f: (x: DesiredServer) => DesiredServer) => ({
  ...s,
  app: s.app.map((x) => (x.name === name ? f(x) : x)),
});
const slot = (s: DesiredState, name: string, f: (x: DesiredServer) => DesiredServer) => ({
  ...s,
  slots: s.slots.map((x) => (x.name === name ? f(x) : x)),
});
const hosts = (s: DesiredState, f: (h: Record<string, string>) => void) => {
  const h = { ...s.hosts };
  f(h);
  return { ...s, hosts: h };
};
const certs = (s: DesiredState, f: (c: Record<string, string>) => void) => {
  const c = { ...s.certs };
  f(c);
  return { ...s, certs: c };
};

/** 42 pairs, applied in order (each one's "after" is the next one's "before"). Upstream 6 is upstream 0's port on another address. */
export const PAIRS: readonly Pair[] = [
  { name: 'server weight', change: (s) => app(s, 's1', (x) => ({ ...x, weight: 20 })) },
  { name: 'second server weight', change: (s) => app(s, 's2', (x) => ({ ...x, weight: 5 })) },
  { name: 'server address (same port)', change: (s) => app(s, 's1', (x) => ({ ...x, up: 6 })) },
  { name: 'server port', change: (s) => app(s, 's1', (x) => ({ ...x, up: 4 })) },
  { name: 'server state maint', change: (s) => app(s, 's2', (x) => ({ ...x, maint: true })) },
  { name: 'server state ready', change: (s) => app(s, 's2', (x) => ({ ...x, maint: false })) },
  {
    name: 'add a server (dynamic)',
    change: (s) => ({ ...s, app: [...s.app, { name: 's3', up: 5, weight: 10, maint: false }] }),
  },
  {
    name: 'add another server',
    change: (s) => ({ ...s, app: [...s.app, { name: 's4', up: 3, weight: 1, maint: false }] }),
  },
  { name: 'remove a server', change: (s) => ({ ...s, app: s.app.filter((x) => x.name !== 's4') }) },
  {
    name: 'remove another server',
    change: (s) => ({ ...s, app: s.app.filter((x) => x.name !== 's3') }),
  },
  {
    name: 'fill an empty slot',
    change: (s) => slot(s, 'slot2', (x) => ({ ...x, up: 3, maint: false })),
  },
  {
    name: 'slot weight (static balance: reloads)',
    structural: true,
    change: (s) => slot(s, 'slot1', (x) => ({ ...x, weight: 5 })),
  },
  { name: 'empty a slot (maint)', change: (s) => slot(s, 'slot1', (x) => ({ ...x, maint: true })) },
  {
    name: 'beyond the slots: a server on a static backend',
    structural: true,
    change: (s) => ({
      ...s,
      slots: [...s.slots, { name: 'slot3', up: 4, weight: 1, maint: false }],
    }),
  },
  {
    name: 'slot back to service with a new address',
    change: (s) => slot(s, 'slot1', (x) => ({ ...x, up: 5, maint: false })),
  },
  { name: 'map: add an entry', change: (s) => hosts(s, (h) => (h['c.example'] = 'be_slots')) },
  { name: 'map: change an entry', change: (s) => hosts(s, (h) => (h['a.example'] = 'be_slots')) },
  { name: 'map: remove an entry', change: (s) => hosts(s, (h) => delete h['c.example']) },
  {
    name: 'map: add three entries',
    change: (s) =>
      hosts(s, (h) =>
        Object.assign(h, { 'd.example': 'be_app', 'e.example': 'be_slots', 'f.example': 'be_app' }),
      ),
  },
  {
    name: 'map: remove two, change one',
    change: (s) =>
      hosts(s, (h) => {
        delete h['d.example'];
        delete h['e.example'];
        h['a.example'] = 'be_app';
      }),
  },
  { name: 'a new map file', structural: true, change: (s) => ({ ...s, extraMap: true }) },
  {
    name: 'certificate rotation',
    cert: true,
    change: (s) => certs(s, (c) => (c['one.pem'] = 'one.example.v2')),
  },
  {
    name: 'certificate added (crt-list line)',
    cert: true,
    change: (s) => certs(s, (c) => (c['two.pem'] = 'two.example')),
  },
  {
    name: 'rotation of the added certificate',
    cert: true,
    change: (s) => certs(s, (c) => (c['two.pem'] = 'two.example.v2')),
  },
  { name: 'certificate removed', cert: true, change: (s) => certs(s, (c) => delete c['one.pem']) },
  {
    name: 'third certificate added',
    cert: true,
    change: (s) => certs(s, (c) => (c['three.pem'] = 'three.example')),
  },
  {
    name: 'one certificate removed, another rotated',
    cert: true,
    change: (s) =>
      certs(s, (c) => {
        delete c['two.pem'];
        c['three.pem'] = 'three.example.v2';
      }),
  },
  { name: 'timeout', structural: true, change: (s) => ({ ...s, timeoutClient: '20s' }) },
  { name: 'ACL and rule added', structural: true, change: (s) => ({ ...s, acl: true }) },
  { name: 'ACL and rule removed', structural: true, change: (s) => ({ ...s, acl: false }) },
  {
    name: 'new backend and a host for it',
    structural: true,
    change: (s) => hosts({ ...s, newBackend: true }, (h) => (h['n.example'] = 'be_new')),
  },
  { name: 'new frontend', structural: true, change: (s) => ({ ...s, newFrontend: true }) },
  { name: 'global maxconn', structural: true, change: (s) => ({ ...s, maxconn: 2000 }) },
  { name: 'frontend removed', structural: true, change: (s) => ({ ...s, newFrontend: false }) },
  {
    name: 'backend removed',
    structural: true,
    change: (s) => hosts({ ...s, newBackend: false }, (h) => delete h['n.example']),
  },
  {
    name: 'weight, map entry and certificate together',
    cert: true,
    change: (s) =>
      certs(
        hosts(
          app(s, 's2', (x) => ({ ...x, weight: 7 })),
          (h) => (h['g.example'] = 'be_app'),
        ),
        (c) => (c['three.pem'] = 'three.example'),
      ),
  },
  {
    name: 'server back to its first upstream',
    change: (s) => app(s, 's1', (x) => ({ ...x, up: 0, weight: 10 })),
  },
  {
    name: 'slots swapped',
    change: (s) =>
      slot(
        slot(s, 'slot2', (x) => ({ ...x, maint: true })),
        'slot1',
        (x) => ({ ...x, up: 2 }),
      ),
  },
  {
    name: 'map: entry for the slots',
    change: (s) => hosts(s, (h) => (h['h.example'] = 'be_slots')),
  },
  {
    name: 'certificate added back',
    cert: true,
    change: (s) => certs(s, (c) => (c['one.pem'] = 'one.example')),
  },
  {
    name: 'second map changed',
    change: (s) => ({ ...s, hosts: { ...s.hosts, 'a.example': 'be_slots' } }),
  },
  {
    name: 'timeout and a weight together',
    structural: true,
    change: (s) => app({ ...s, timeoutClient: '15s' }, 's1', (x) => ({ ...x, weight: 3 })),
  },
];
