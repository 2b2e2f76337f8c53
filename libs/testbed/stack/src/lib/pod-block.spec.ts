import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { claimPodBlock, type PodBlock } from './pod-block.js';

const dirs: string[] = [];
const freshDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'pod-block-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const third = (b: PodBlock) => Number(b.first.split('.')[2]);

describe('claimPodBlock', () => {
  it('never hands one block to two stacks, and keeps the Node address out of the pod range', () => {
    const dir = freshDir();
    const blocks = Array.from({ length: 40 }, () => claimPodBlock(dir));
    expect(new Set(blocks.map(third)).size).toBe(40);
    expect(new Set(blocks.map((b) => b.serviceCidr)).size).toBe(40);
    for (const b of blocks) {
      expect(b.last).toBe(`127.0.${third(b) + 4}.253`);
      expect(b.nodeIP).toBe(`127.0.${third(b) + 4}.254`);
    }
    expect(() => claimPodBlock(dir)).toThrow(/all 40 pod address blocks are claimed/);
    blocks[7]!.release();
    expect(third(claimPodBlock(dir))).toBe(third(blocks[7]!));
  });

  it('takes over the claim of a process that is gone, not of one that runs', () => {
    const dir = freshDir();
    const gone = spawnSync('true').pid;
    for (let i = 0; i < 40; i++) {
      const pid = i === 3 ? gone : process.ppid;
      writeFileSync(join(dir, `haptic-stack-pods-127.0.${40 + i * 5}.lock`), String(pid));
    }
    expect(claimPodBlock(dir).first).toBe('127.0.55.1');
    expect(readdirSync(dir)).toHaveLength(40);
  });
});
