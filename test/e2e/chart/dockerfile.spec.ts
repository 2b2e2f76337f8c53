import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { find, root, template } from './helm.js';

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

// What `npm run image` builds and the image test runs is checked there (test/image); this file
// checks the Dockerfile's promises that the chart and the scripts rely on.
describe('the Dockerfile', () => {
  it('takes its bases as build arguments: Node from one, Debian with HAProxy from the other', () => {
    expect(dockerfile.stages.map((s) => [s.name, s.from])).toEqual([
      ['node', '${NODE_IMAGE}'],
      ['runtime', '${BASE_IMAGE}'],
    ]);
    expect(ops(runtime, 'COPY')).toContain('--from=node /usr/local/bin/node /usr/local/bin/node');
  });

  it('names an exact Node version of the current LTS line (26) and checks it at build time', () => {
    expect(dockerfile.args['NODE_VERSION']).toMatch(/^26\.\d+\.\d+$/);
    expect(ops(runtime, 'RUN').join('\n')).toContain(
      'node --version | grep -qx "v${NODE_VERSION}"',
    );
  });

  it('carries the HAProxy version the tests run and checks it at build time', () => {
    // scripts/haproxy3.sh fetches Debian trixie's HAProxy for the tests; READY records its version
    expect(dockerfile.args['HAPROXY_VERSION']).toMatch(/^3\.0\.\d+$/);
    expect(ops(runtime, 'RUN').join('\n')).toContain(
      'haproxy -v | head -1 | grep -q "^HAProxy version ${HAPROXY_VERSION}"',
    );
    expect(ops(runtime, 'ENV').join(' ')).toContain('HAPTIC_HAPROXY_BIN=/usr/sbin/haproxy');
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

  it('starts the haptic command under tini and is read-only-root friendly', () => {
    expect(ops(runtime, 'ENTRYPOINT')).toEqual(['["/usr/bin/tini", "--", "haptic"]']);
    expect(ops(runtime, 'CMD')).toEqual(['["run"]']);
    expect(ops(runtime, 'RUN').join('\n')).toContain(
      'ln -s /app/bin/haptic.js /usr/local/bin/haptic',
    );
    const env = ops(runtime, 'ENV').join(' ');
    expect(env).toContain('HOME=/tmp');
    expect(env).toContain('NODE_ENV=production');
  });
});
