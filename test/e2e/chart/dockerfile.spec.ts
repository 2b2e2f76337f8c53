import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { chartDir, find, root, template } from './helm.js';

interface Instruction {
  readonly op: string;
  readonly args: string;
}
interface Stage {
  readonly from: string;
  readonly name: string | undefined;
  readonly body: Instruction[];
}

/** The Dockerfile as global ARGs and stages of instructions (continuation lines joined). */
function parseDockerfile(text: string): { args: Record<string, string>; stages: Stage[] } {
  const lines = text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
  const args: Record<string, string> = {};
  const stages: Stage[] = [];
  for (const line of lines) {
    const [op = '', ...rest] = line.split(/\s+/);
    const instruction = { op: op.toUpperCase(), args: rest.join(' ') };
    if (instruction.op === 'FROM') {
      const m = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(instruction.args);
      stages.push({ from: m?.[1] ?? '', name: m?.[2], body: [] });
    } else if (stages.length === 0 && instruction.op === 'ARG') {
      const [k = '', v = ''] = instruction.args.split('=');
      args[k] = v;
    } else stages.at(-1)?.body.push(instruction);
  }
  return { args, stages };
}

const dockerfile = parseDockerfile(readFileSync(join(root, 'Dockerfile'), 'utf8'));
const runtime = dockerfile.stages.at(-1)!;
const ops = (s: Stage, op: string) => s.body.filter((i) => i.op === op).map((i) => i.args);

describe('the Dockerfile', () => {
  it('builds in stages: build, haproxy, runtime', () => {
    expect(dockerfile.stages.map((s) => s.name)).toEqual(['build', 'haproxy', 'runtime']);
    const copiedFrom = ops(runtime, 'COPY')
      .map((a) => /--from=(\S+)/.exec(a)?.[1])
      .filter((s) => s !== undefined);
    expect(new Set(copiedFrom)).toEqual(new Set(['build', 'haproxy']));
  });

  it('runs on the current Node LTS', () => {
    expect(dockerfile.args['NODE_VERSION']).toBe('26');
    expect(runtime.from).toBe('node:${NODE_VERSION}-trixie-slim');
  });

  it("carries the HAProxy version of the chart's HAProxy pods and checks it at build time", () => {
    const values = parse(readFileSync(join(chartDir, 'values.yaml'), 'utf8')) as {
      haproxy: { image: { repository: string; tag: string } };
    };
    expect(dockerfile.args['HAPROXY_VERSION']).toBe(values.haproxy.image.tag);
    const haproxyStage = dockerfile.stages.find((s) => s.name === 'haproxy')!;
    expect(haproxyStage.from).toBe(`${values.haproxy.image.repository}:\${HAPROXY_VERSION}`);
    expect(ops(runtime, 'RUN').join('\n')).toContain(
      'haproxy -vv | head -1 | grep -q "^HAProxy version ${HAPROXY_VERSION}"',
    );
    expect(ops(runtime, 'ENV').join(' ')).toContain('HAPTIC_HAPROXY_BIN=/usr/local/sbin/haproxy');
  });

  it('runs as the non-root user the chart runs the controller as', () => {
    const users = ops(runtime, 'USER');
    expect(users).toEqual(['10001:10001']);
    const last = runtime.body.findLastIndex((i) => i.op === 'USER');
    // Nothing runs as root after the switch, and the user is numeric (runAsNonRoot can check it).
    expect(runtime.body.slice(last).filter((i) => i.op === 'RUN')).toEqual([]);
    const pod = find(template(), 'Deployment', 'edge-haptic-controller').spec.template.spec;
    expect(pod.securityContext.runAsUser).toBe(10001);
    expect(pod.securityContext.runAsGroup).toBe(10001);
  });

  it('starts bin/haptic.js directly (it derives the heap limit) and is read-only-root friendly', () => {
    expect(ops(runtime, 'ENTRYPOINT')).toEqual(['["node", "/app/bin/haptic.js"]']);
    expect(ops(runtime, 'CMD')).toEqual(['["run"]']);
    const env = ops(runtime, 'ENV').join(' ');
    expect(env).toContain('HOME=/tmp');
    expect(env).toContain('NODE_ENV=production');
    // No npm at run time: npm writes caches and logs under HOME.
    expect(ops(runtime, 'ENTRYPOINT').join(' ')).not.toContain('npm');
  });

  it('keeps local state out of the build context', () => {
    const ignored = readFileSync(join(root, '.dockerignore'), 'utf8').split('\n');
    for (const p of ['node_modules', 'dist', '.tools', '.git']) expect(ignored).toContain(p);
  });
});
