import { describe, expect, it } from 'vitest';
import { chartDir, find, runHelm, template } from './helm.js';

// GitOps renders the chart with `helm template` (no cluster): the output must be the same on each
// render, and a missing password an error rather than a new random one each time.
const render = (sets: string[]) =>
  runHelm(['template', 'edge', chartDir, '-n', 'haptic', ...sets.flatMap((s) => ['--set', s])]);

// The generated webhook certificate is new on each offline render too (genCA): cert-manager is
// the GitOps path for it, so these renders take it from there.
const CERT_MANAGER = 'webhook.certManager.enabled=true';

describe('credentials under helm template', () => {
  it.each([
    ['credentials.existingSecret', ['credentials.existingSecret=my-credentials']],
    ['a given password', ['credentials.password=s3cret-Pass']],
  ])('renders the same output twice with %s', (_what, sets) => {
    const first = render([CERT_MANAGER, ...sets]);
    const second = render([CERT_MANAGER, ...sets]);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('kind: Deployment');
    expect(second.stdout).toBe(first.stdout);
  });

  it('fails clearly with neither', () => {
    const r = render([CERT_MANAGER]);
    expect(r.code).not.toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(
      'credentials: no cluster to read the Dataplane API password from (helm template or a client-side dry run): set credentials.existingSecret',
    );
  });

  it('rolls the HAProxy pods when the credentials change, not the controller', () => {
    const pod = (password: string, kind: string) =>
      find(template({ 'credentials.password': password }), 'Deployment', `edge-haptic-${kind}`).spec
        .template.metadata.annotations as Record<string, string | undefined>;
    const a = pod('first-Password', 'haproxy')['checksum/credentials'];
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(pod('second-Password', 'haproxy')['checksum/credentials']).not.toBe(a);
    expect(pod('first-Password', 'haproxy')['checksum/credentials']).toBe(a);
    // The controller reads the Secret through its watch: no restart needed.
    expect(pod('first-Password', 'controller')['checksum/credentials']).toBeUndefined();
  });
});
