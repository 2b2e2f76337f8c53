import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HaproxyBinaryNotFoundError } from './haproxy-bin.errors.js';
import {
  availableMajors,
  projectHaproxy26Path,
  projectHaproxy3Path,
  resolveHaproxyBinaryDetailed,
} from './resolve.js';
import { haproxyVersion } from './version.js';

/** A fake `haproxy` that prints the given version line for `-v`. */
function fakeHaproxy(dir: string, version: string): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, 'haproxy');
  writeFileSync(
    path,
    `#!/bin/sh\necho "HAProxy version ${version} 2026/10/17 - https://haproxy.org/"\n`,
  );
  chmodSync(path, 0o755);
  return path;
}

describe('resolveHaproxyBinary', () => {
  let tmp: string;
  let pathBin: string;
  let projectBin: string;
  let envBin: string;
  const base = (): { projectRoot: string; fallbackDirs: string[] } => ({
    projectRoot: join(tmp, 'project'),
    fallbackDirs: [],
  });

  beforeAll(() => {
    tmp = mkdtempSync(join(tmpdir(), 'haproxy-bin-'));
    pathBin = fakeHaproxy(join(tmp, 'usr-sbin'), '2.6.12-1+deb12u4');
    projectBin = fakeHaproxy(join(tmp, 'project', '.tools', 'haproxy3', 'bin'), '3.0.11-1+deb13u4');
    envBin = fakeHaproxy(join(tmp, 'custom'), '3.2.4');
  });
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it('prefers the flag, then the environment, then the project binary, then PATH', () => {
    const env = { PATH: join(tmp, 'usr-sbin'), HAPTIC_HAPROXY_BIN: envBin };
    expect(resolveHaproxyBinaryDetailed(pathBin, { ...base(), env })).toEqual({
      path: pathBin,
      source: 'flag',
    });
    expect(resolveHaproxyBinaryDetailed(undefined, { ...base(), env })).toEqual({
      path: envBin,
      source: 'env',
    });
    const noEnv = { PATH: join(tmp, 'usr-sbin') };
    expect(resolveHaproxyBinaryDetailed(undefined, { ...base(), env: noEnv })).toEqual({
      path: projectBin,
      source: 'project',
    });
    const noProject = { ...base(), projectRoot: join(tmp, 'elsewhere'), env: noEnv };
    expect(resolveHaproxyBinaryDetailed(undefined, noProject)).toEqual({
      path: pathBin,
      source: 'path',
    });
  });

  it('honours HAPTIC_HAPROXY3_DIR for the project binary', () => {
    const env = { PATH: '', HAPTIC_HAPROXY3_DIR: join(tmp, 'project', '.tools', 'haproxy3') };
    expect(projectHaproxy3Path({ env })).toBe(projectBin);
    expect(resolveHaproxyBinaryDetailed(undefined, { env, fallbackDirs: [] }).source).toBe(
      'project',
    );
  });

  it('fails with a clear error when an explicit choice is not executable', () => {
    const env = { PATH: '' };
    expect(() => resolveHaproxyBinaryDetailed(join(tmp, 'nope'), { ...base(), env })).toThrow(
      HaproxyBinaryNotFoundError,
    );
    expect(() =>
      resolveHaproxyBinaryDetailed(undefined, {
        ...base(),
        env: { PATH: '', HAPTIC_HAPROXY_BIN: 'nope' },
      }),
    ).toThrow(/HAPTIC_HAPROXY_BIN names 'nope'/);
  });

  it('fails with the set-up hint when nothing is found', () => {
    const opts = { projectRoot: join(tmp, 'elsewhere'), fallbackDirs: [], env: { PATH: '' } };
    expect(() => resolveHaproxyBinaryDetailed(undefined, opts)).toThrow(/scripts\/setup\.sh/);
  });

  it('lists one binary per branch, oldest first, the environment winning its branch', () => {
    const env = { PATH: join(tmp, 'usr-sbin'), HAPTIC_HAPROXY_BIN: envBin };
    const majors = availableMajors({ ...base(), env });
    expect(majors.map((m) => [m.branch, m.bin])).toEqual([
      ['2.6', pathBin],
      ['3.0', projectBin],
      ['3.2', envBin],
    ]);
    const otherProject = fakeHaproxy(join(tmp, 'other'), '3.0.1');
    const override = availableMajors({
      ...base(),
      env: { PATH: '', HAPTIC_HAPROXY_BIN: otherProject },
    });
    expect(override.map((m) => m.bin)).toEqual([otherProject]);
  });

  describe('the project 2.6 binary (made when the machine has no 2.6)', () => {
    let project26: string;
    beforeAll(() => {
      project26 = fakeHaproxy(
        join(tmp, 'project', '.tools', 'haproxy26', 'bin'),
        '2.6.12-1+deb12u3',
      );
      fakeHaproxy(join(tmp, 'trixie-sbin'), '3.0.11-1+deb13u4');
    });

    it("comes after the machine's own haproxy, and is used when the machine has none", () => {
      const onPath = { ...base(), projectRoot: join(tmp, 'elsewhere') };
      const withSystem = {
        PATH: join(tmp, 'usr-sbin'),
        HAPTIC_HAPROXY26_DIR: dirname(dirname(project26)),
      };
      expect(resolveHaproxyBinaryDetailed(undefined, { ...onPath, env: withSystem })).toEqual({
        path: pathBin,
        source: 'path',
      });
      const noSystem = { PATH: '', HAPTIC_HAPROXY26_DIR: dirname(dirname(project26)) };
      expect(resolveHaproxyBinaryDetailed(undefined, { ...onPath, env: noSystem })).toEqual({
        path: project26,
        source: 'project-2.6',
      });
    });

    it("gives the matrix the machine's 2.6 first, else the project's", () => {
      const withSystem = availableMajors({ ...base(), env: { PATH: join(tmp, 'usr-sbin') } });
      expect(withSystem.map((m) => [m.branch, m.bin])).toEqual([
        ['2.6', pathBin],
        ['3.0', projectBin],
      ]);
      const otherMajorOnPath = availableMajors({
        ...base(),
        env: { PATH: join(tmp, 'trixie-sbin') },
      });
      expect(otherMajorOnPath.map((m) => [m.branch, m.bin])).toEqual([
        ['2.6', project26],
        ['3.0', projectBin],
      ]);
      expect(projectHaproxy26Path(base())).toBe(project26);
    });

    it("ignores the machine's haproxy under HAPTIC_IGNORE_SYSTEM_TOOLS=1 (a fresh machine)", () => {
      const env = { PATH: join(tmp, 'usr-sbin'), HAPTIC_IGNORE_SYSTEM_TOOLS: '1' };
      expect(availableMajors({ ...base(), env }).map((m) => m.bin)).toEqual([
        project26,
        projectBin,
      ]);
      const noProject3 = { ...base(), env: { ...env, HAPTIC_HAPROXY3_DIR: join(tmp, 'none') } };
      expect(resolveHaproxyBinaryDetailed(undefined, noProject3)).toEqual({
        path: project26,
        source: 'project-2.6',
      });
      const nothing = {
        projectRoot: join(tmp, 'elsewhere'),
        fallbackDirs: [join(tmp, 'usr-sbin')],
        env,
      };
      expect(() => resolveHaproxyBinaryDetailed(undefined, nothing)).toThrow(/scripts\/setup\.sh/);
    });
  });

  it('reads the version of a binary', () => {
    expect(haproxyVersion(projectBin).text).toBe('3.0.11-1+deb13u4');
    expect(() => haproxyVersion(join(tmp, 'nope'))).toThrow(/cannot run/);
  });
});
