import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const haptic = fileURLToPath(new URL('../../../bin/haptic.js', import.meta.url));

describe('haptic echo (process)', () => {
  it('prints where it listens, echoes the pod environment and exits 0 on SIGTERM', async () => {
    const child = spawn(
      process.execPath,
      [haptic, 'echo', '--address', '127.0.0.3', '--port', '0', '-o', 'json'],
      {
        env: { ...process.env, POD_NAME: 'cli-pod', NAMESPACE: 'cli-ns' },
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    try {
      const [line] = (await once(child.stdout, 'data')) as [Buffer];
      const listening = JSON.parse(line.toString().split('\n')[0]!) as {
        address: string;
        port: number;
      };
      expect(listening.address).toBe('127.0.0.3');
      const res = await fetch(`http://127.0.0.3:${listening.port}/hello`);
      expect(await res.json()).toMatchObject({
        path: '/hello',
        pod: 'cli-pod',
        namespace: 'cli-ns',
      });
      child.kill('SIGTERM');
      const [code] = (await once(child, 'exit')) as [number | null];
      expect(code).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});
