import { describe, expect, it } from 'vitest';
import { snapshotOf } from '#index';
import { compileTemplates } from '../compile.js';
import { render } from '../render.js';
import { specOf } from '../spec-fixture.test.js';
import { webBackend } from './backend-fixture.test.js';
import type { RenderInputs, RenderResult } from '../types.js';

// `ingress_backend` with the endpoint lists: `.section` prints what the library printed before
// with `backend <name>`, `.lines`, `server_slots | server_lines` and `.userlist`.
const SECTION =
  '{%- for backend in backends -%}{%- assign ing = backend.ingress -%}' +
  '{%- assign a = backend | ingress_backend: extra, resources.secrets, resources.endpointslices, resources.services, previous.backends -%}' +
  '{{ a.section }}\n{%- endfor -%}';
const PARTS =
  '{%- for backend in backends -%}{%- assign ing = backend.ingress -%}' +
  '{%- assign a = backend | ingress_backend: extra, resources.secrets -%}' +
  '{%- assign s = resources.endpointslices | server_slots: resources.services, backend.namespace, backend.service, backend.port, a.slots, previous.backends[backend.name].servers -%}' +
  'backend {{ backend.name }}{{ a.lines }}{{ s | server_lines: a.opts, a.cookie }}{{ a.userlist }}\n' +
  '{%- endfor -%}';

const b64 = (s: string): string => Buffer.from(s).toString('base64');
const watched = (resources: string, indexBy: string[]) => ({
  apiVersion: 'v1',
  resources,
  indexBy,
  store: 'full' as const,
  enableValidationWebhook: false,
});
const byName = ['metadata.namespace', 'metadata.name'];
const bySvc = ['metadata.namespace', "metadata.labels['kubernetes.io/service-name']"];

const service = {
  kind: 'Service',
  metadata: { namespace: 'apps', name: 'echo' },
  spec: { ports: [{ name: 'http', port: 80 }] },
};
const slice = (ips: string[]) => ({
  kind: 'EndpointSlice',
  metadata: {
    namespace: 'apps',
    name: 'echo-1',
    labels: { 'kubernetes.io/service-name': 'echo' },
  },
  addressType: 'IPv4',
  ports: [{ name: 'http', port: 8080 }],
  endpoints: ips.map((ip) => ({ addresses: [ip], conditions: { ready: true } })),
});
const users = {
  kind: 'Secret',
  metadata: { namespace: 'apps', name: 'users' },
  data: { auth: b64('alice:$apr1$abc$def\n') },
};

function run(
  template: string,
  annotations: Record<string, string> | undefined,
  objects: { slices: object[]; secrets?: object[] },
  inputs: RenderInputs = {},
): RenderResult {
  const spec = specOf({ haproxy: template });
  const watchedResources = {
    ...spec.watchedResources,
    secrets: watched('secrets', byName),
    services: watched('services', byName),
    endpointslices: watched('endpointslices', bySvc),
  };
  const { ing, backends } = webBackend(annotations);
  const compiled = compileTemplates({ ...spec, watchedResources }, { providers: [backends] });
  if (!compiled.ok) throw new Error(JSON.stringify(compiled.error));
  const snapshot = snapshotOf(
    { ingresses: byName, secrets: byName, services: byName, endpointslices: bySvc },
    {
      ingresses: [ing],
      secrets: objects.secrets ?? [],
      services: [service],
      endpointslices: objects.slices,
    },
  );
  return render(compiled.value, snapshot, inputs);
}

function output(...args: Parameters<typeof run>): string {
  const r = run(...args);
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  if (r.quarantined.length > 0) throw new Error(JSON.stringify(r.quarantined));
  return r.outputs.haproxyConfig;
}

describe('ingress_backend with the endpoint lists', () => {
  it('prints the whole backend section: its lines, server slots and userlist', () => {
    const slices = [slice(['10.0.0.2', '10.0.0.1', '10.0.0.3'])];
    expect(output(SECTION, undefined, { slices })).toBe(
      [
        'backend svc_apps_echo_80',
        '  balance roundrobin',
        '  server srv1 10.0.0.1:8080 weight 1',
        '  server srv2 10.0.0.2:8080 weight 1',
        '  server srv3 10.0.0.3:8080 weight 1',
        '  server srv4 0.0.0.0:1 weight 1 disabled',
      ].join('\n'),
    );
  });

  it('prints what the separate filters print, with annotations and a deployed config', () => {
    const annotations = {
      'haproxy-haptic.org/affinity': 'cookie',
      'haproxy-haptic.org/auth-secret': 'users',
      'haproxy-haptic.org/backend-protocol': 'h2',
    };
    const objects = { slices: [slice(['10.0.0.1', '10.0.0.2'])], secrets: [users] };
    // 10.0.0.2 keeps the slot it has in the deployed config
    const previous = {
      haproxyConfig: 'backend ing_apps_web_echo_80\n  server srv5 10.0.0.2:8080 weight 1\n',
    };
    const section = output(SECTION, annotations, objects, { previous });
    expect(section).toBe(output(PARTS, annotations, objects, { previous }));
    expect(section).toContain('  server srv5 10.0.0.2:8080 proto h2 cookie srv5 weight 1\n');
    expect(section).toContain('  server srv1 10.0.0.1:8080 proto h2 cookie srv1 weight 1\n');
    expect(section).toContain('\nuserlist ul_ing_apps_web_echo_80\n  user alice password');
    expect(output(SECTION, undefined, objects)).toBe(output(PARTS, undefined, objects));
    // the result itself prints as its section (what the library's snippet prints)
    const printed = SECTION.replace(/-%\}\{\{ a\.section \}\}/, '%}{{ a }}');
    expect(printed).not.toBe(SECTION);
    expect(output(printed, annotations, objects, { previous })).toBe(section);
  });

  it('refuses a bad slice, attributed to the slice', () => {
    const r = run(SECTION, undefined, { slices: [slice(['10.0.0.1 backup'])] });
    expect(r.ok).toBe(true);
    expect(r.quarantined.map((q) => q.object.name)).toEqual(['echo-1']);
    expect(r.quarantined[0]?.problem.message).toContain('10.0.0.1 backup is not an IPv4 address');
  });

  it('refuses an incomplete set of endpoint arguments', () => {
    const template = SECTION.replace(', resources.services, previous.backends', '');
    const r = run(template, undefined, { slices: [] });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.problems[0]?.message).toContain('the endpoint arguments are');
  });
});
