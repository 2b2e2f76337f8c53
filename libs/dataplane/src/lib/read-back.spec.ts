import { describe, expect, it } from 'vitest';
import type { HaproxyPod } from '#events';
import type { PodReadBack } from './fleet.js';
import { chooseReadBack, isEmptyConfig } from './read-back.js';

const pod = (name: string): HaproxyPod => ({
  namespace: 'ns',
  name,
  address: '127.0.0.1',
  dataplanePort: 5555,
});
const EMPTY =
  '# _version=1\nglobal\n  log stderr format raw local0 notice\ndefaults\n  mode http\n';
const cfg = (servers: string) =>
  `# _version=7\nglobal\nfrontend f\n  bind :80\nbackend b\n${servers}`;
const read = (name: string, config: string | undefined): PodReadBack => ({
  pod: pod(name),
  files:
    config === undefined ? undefined : { config, maps: { 'h.map': name }, certs: {}, general: {} },
});

describe('chooseReadBack', () => {
  it('takes what most non-empty pods run, ignoring empty and unreadable pods', () => {
    const a = cfg('  server srv1 10.0.0.1:80\n');
    const b = cfg('  server srv1 10.0.0.2:80\n');
    const seed = chooseReadBack([
      { ...read('p1', b), files: { config: b, maps: {}, certs: {}, general: {} } },
      { ...read('p2', a), files: { config: a, maps: { 'h.map': 'x' }, certs: {}, general: {} } },
      { ...read('p3', a), files: { config: a, maps: { 'h.map': 'x' }, certs: {}, general: {} } },
      read('p4', EMPTY),
      read('p5', undefined),
    ]);
    expect(seed).toEqual({
      haproxyConfig: 'global\nfrontend f\n  bind :80\nbackend b\n  server srv1 10.0.0.1:80\n',
      maps: { 'h.map': 'x' },
      pods: 5,
      agreeing: 2,
    });
  });

  it('answers null when no pod runs a configuration', () => {
    expect(chooseReadBack([read('p1', EMPTY), read('p2', undefined)])).toEqual({
      haproxyConfig: null,
      maps: {},
      pods: 2,
      agreeing: 0,
    });
    expect(isEmptyConfig(cfg(''))).toBe(false);
  });
});
