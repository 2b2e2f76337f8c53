import { describe, expect, it } from 'vitest';
import {
  agentSpawnsHaproxy,
  haproxyArgs,
  planLaunch,
  playsAgent,
  type LaunchContext,
} from './container-command.js';
import { DEFAULT_IMAGE_TABLE, ruleFor } from './image-table.js';

const ctx: LaunchContext = {
  podIP: '127.0.10.5',
  podDir: '/pods/p',
  env: { DATAPLANE_USERNAME: 'admin', DATAPLANE_PASSWORD: 'pw', LEVEL: 'debug' },
  mapPath: (p) =>
    p.startsWith('/etc/haproxy')
      ? p.replace('/etc/haproxy', '/pods/p/v/cfg')
      : p.startsWith('/var/run/haproxy')
        ? p.replace('/var/run/haproxy', '/pods/p/v/run')
        : p,
  haproxyBin: '/opt/haproxy3/bin/haproxy',
};
const plan = (container: Parameters<typeof planLaunch>[0], extra: Partial<LaunchContext> = {}) =>
  planLaunch(container, ruleFor(container, DEFAULT_IMAGE_TABLE)!, { ...ctx, ...extra });

describe('launch plans', () => {
  it('runs the conformance echo image as haptic echo on the pod address with its profile', () => {
    expect(
      plan({ name: 'e', image: 'registry.k8s.io/gateway-api/conformance/echo-basic:v1' }).args,
    ).toEqual(['echo', '--address', '127.0.10.5', '--profile', 'echo-basic']);
  });

  it('runs the controller image with its own args, mapped and expanded', () => {
    const p = plan({
      name: 'c',
      image: 'ghcr.io/x/haptic:1',
      args: ['--log-level=$(LEVEL)', '--templates=/etc/haproxy/t'],
    });
    expect(p.args).toEqual([
      'run',
      '--log-level=debug',
      '--templates=/pods/p/v/cfg/t',
      '--address',
      '127.0.10.5',
    ]);
    expect(
      plan({ name: 'c', image: 'ghcr.io/x/haptic:1', command: ['haptic'], args: ['run', '-v'] })
        .args,
    ).toEqual(['run', '-v', '--address', '127.0.10.5']);
  });

  it('builds the agent from the Dataplane sidecar: port, shared config folder, credentials file', () => {
    const p = plan({
      name: 'dataplane',
      image: 'haproxytech/haproxy-debian:3.0',
      command: ['dataplaneapi'],
      ports: [{ name: 'dataplane', containerPort: 5555 }],
    });
    expect(p.args).toEqual([
      'agent',
      '--address',
      '127.0.10.5',
      '--port',
      '5555',
      '--config-dir',
      '/pods/p/v/cfg',
      '--username',
      'admin',
      '--password-file',
      '/pods/p/secrets/dataplane.password',
    ]);
    expect(p.files).toEqual({ '/pods/p/secrets/dataplane.password': 'pw' });
  });

  it('keeps haptic agent args as given, adding the pod address', () => {
    expect(
      plan({
        name: 'a',
        image: 'ghcr.io/x/haptic-agent:1',
        args: ['agent', '--config-dir', '/etc/haproxy'],
      }).args,
    ).toEqual(['agent', '--config-dir', '/pods/p/v/cfg', '--address', '127.0.10.5']);
  });

  it('lets the agent play the HAProxy container of its pod', () => {
    const covered = plan(
      { name: 'haproxy', image: 'haproxytech/haproxy-debian:3.0' },
      { agentContainer: 'dataplane' },
    );
    expect(covered).toMatchObject({ args: [], coveredBy: 'dataplane' });
    const alone = plan({ name: 'haproxy', image: 'haproxy:2.6' });
    expect(alone.args.slice(0, 3)).toEqual(['agent', '--address', '127.0.10.5']);
  });

  it('puts the pod address in place of a bind-all address (all addresses of a pod are its own)', () => {
    const run = (args: string[]) => plan({ name: 'c', image: 'haptic', args }).args;
    expect(run(['run', '--address=0.0.0.0'])).toEqual(['run', '--address=127.0.10.5']);
    expect(run(['run', '--address', '::'])).toEqual(['run', '--address', '127.0.10.5']);
    expect(run(['run', '--address=127.0.0.9'])).toEqual(['run', '--address=127.0.0.9']);
  });

  it('runs the haptic image started as `agent` as the Dataplane sidecar that plays the HAProxy container', () => {
    const sidecar = {
      name: 'dataplane',
      image: 'haproxy-haptic/haptic:0.1.0',
      args: ['agent', '--config-dir=/etc/haproxy', '--address=0.0.0.0'],
    };
    const rule = ruleFor(sidecar, DEFAULT_IMAGE_TABLE);
    expect(playsAgent(sidecar, rule)).toBe(true);
    expect(plan(sidecar)).toMatchObject({
      runner: 'agent',
      args: ['agent', '--config-dir=/pods/p/v/cfg', '--address=127.0.10.5'],
    });
    const controller = { name: 'c', image: 'haproxy-haptic/haptic:0.1.0', args: ['run'] };
    expect(playsAgent(controller, ruleFor(controller, DEFAULT_IMAGE_TABLE))).toBe(false);
  });

  it('runs an HAProxy container beside an attached agent as HAProxy itself: mapped args, working dir in the volume', () => {
    const haproxy = {
      name: 'haproxy',
      image: 'ghcr.io/haproxy-haptic/haproxy:3.0.11',
      args: ['-W', '-db', '-S', '/var/run/haproxy/master.sock,mode,600', '-f', 'haproxy.cfg'],
      workingDir: '/etc/haproxy',
    };
    expect(plan(haproxy)).toEqual({
      runner: 'haproxy',
      command: '/opt/haproxy3/bin/haproxy',
      args: ['-W', '-db', '-S', '/pods/p/v/run/master.sock,mode,600', '-f', 'haproxy.cfg'],
      files: {},
      cwd: '/pods/p/v/cfg',
    });
    // A working dir of the image itself (no volume there) has no folder here: the pod's stands in.
    expect(plan({ ...haproxy, workingDir: '/usr/local/etc/haproxy' }).cwd).toBe('/pods/p');
    const agent = {
      name: 'agent',
      image: 'ghcr.io/haproxy-haptic/haptic:1',
      args: ['agent', '--config-dir=/etc/haproxy', '--master-socket=/var/run/haproxy/master.sock'],
    };
    expect(agentSpawnsHaproxy(agent, ruleFor(agent, DEFAULT_IMAGE_TABLE))).toBe(false);
    const spawning = { ...agent, args: ['agent', '--config-dir=/etc/haproxy'] };
    expect(agentSpawnsHaproxy(spawning, ruleFor(spawning, DEFAULT_IMAGE_TABLE))).toBe(true);
  });

  it('reads HAProxy args from the container command as an HAProxy image runs it', () => {
    expect(haproxyArgs({ command: ['haproxy'], args: ['-f', 'x'] })).toEqual(['-f', 'x']);
    expect(haproxyArgs({ command: ['/usr/sbin/haproxy', '-W'] })).toEqual(['-W']);
    expect(haproxyArgs({ command: ['/usr/bin/tini', '--', 'haproxy', '-db'] })).toEqual(['-db']);
    expect(haproxyArgs({ args: ['-W', '-db'] })).toEqual(['-W', '-db']);
    expect(haproxyArgs({ command: ['sleep', 'infinity'] })).toBeUndefined();
    expect(haproxyArgs({ command: ['/bin/sh', '-c', 'haproxy'] })).toBeUndefined();
    expect(haproxyArgs({})).toBeUndefined();
  });
});
