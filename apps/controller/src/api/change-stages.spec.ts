import { describe, expect, it } from 'vitest';
import { ChangeStages } from './change-stages.js';

function recorder(keep?: number) {
  const observed: [string, number][] = [];
  const s = new ChangeStages({
    ...(keep !== undefined ? { keep } : {}),
    observe: (stage, seconds) => observed.push([stage, seconds]),
  });
  return { s, observed };
}

describe('ChangeStages', () => {
  it('follows a change by correlation id to every pod and records each stage', () => {
    const { s, observed } = recorder();
    s.changed('c1', 'ingresses a/x added', 1010, 1000);
    s.triggered('c1', 1012, ['c1']);
    s.stage('c1', 'render', 30, 'h1');
    s.stage('c1', 'validate', 50);
    s.deploying('c1', 2, 1092);
    s.deployed(
      'h1',
      { pod: 'p/a', durationMs: 40, reloaded: false, stages: { plan: 10, runtime: 25 } },
      1130,
    );
    expect(s.list()).toHaveLength(0);
    expect(s.pending().map((c) => c.correlationId)).toEqual(['c1']);
    s.deployed(
      'h1',
      { pod: 'p/b', durationMs: 60, reloaded: false, stages: { plan: 20, runtime: 30 } },
      1150,
    );
    const [c] = s.list();
    expect(c).toMatchObject({
      correlationId: 'c1',
      run: 'c1',
      outcome: 'applied',
      hash: 'h1',
      stagesMs: { index: 10, debounce: 2, render: 30, validate: 50, applied: 150 },
    });
    expect(c!.pods.map((p) => p.pod)).toEqual(['p/a', 'p/b']);
    expect(observed).toContainEqual(['applied', 0.15]);
    expect(observed.filter(([st]) => st === 'deploy')).toEqual([
      ['deploy', 0.04],
      ['deploy', 0.06],
    ]);
    expect(observed.filter(([st]) => st === 'runtime')).toEqual([
      ['runtime', 0.025],
      ['runtime', 0.03],
    ]);
    expect(s.pending()).toHaveLength(0);
  });

  it('keeps one record per successive change, each with its own stage timings', () => {
    const { s } = recorder();
    for (let k = 0; k < 3; k++) {
      const id = `c${k}`;
      const t = 1000 * (k + 1);
      s.changed(id, `ingresses a/x${k} added`, t + 10 + k, t);
      s.triggered(id, t + 20 + k, [id]);
      s.stage(id, 'render', 30 + k, `h${k}`);
      s.stage(id, 'validate', 40 + k);
      s.deploying(id, 1, t + 100);
      s.deployed(`h${k}`, { pod: 'p/a', durationMs: 5 + k, reloaded: false, stages: {} }, t + 200);
    }
    const records = s.list();
    expect(records.map((c) => c.correlationId)).toEqual(['c2', 'c1', 'c0']);
    for (const [i, c] of [...records].reverse().entries()) {
      expect(c).toMatchObject({
        outcome: 'applied',
        hash: `h${i}`,
        stagesMs: { index: 10 + i, debounce: 10, render: 30 + i, validate: 40 + i, applied: 200 },
      });
      expect(c.pods.map((p) => p.durationMs)).toEqual([5 + i]);
    }
  });

  it('gives every change a coalesced run covers the run stages, each with its own wait', () => {
    const { s } = recorder();
    s.changed('a', 'a', 100);
    s.changed('b', 'b', 140);
    s.triggered('a', 150, ['a', 'b']);
    s.stage('a', 'render', 5, 'h');
    s.stage('a', 'validate', 5);
    s.deploying('a', 0, 170);
    expect(s.list().map((c) => [c.correlationId, c.stagesMs.debounce, c.stagesMs.applied])).toEqual(
      [
        ['b', 10, 30],
        ['a', 50, 70],
      ],
    );
  });

  it('marks a failed render failed and observes nothing for it', () => {
    const { s, observed } = recorder();
    s.changed('a', 'a', 100);
    s.triggered('a', 100, ['a']);
    s.failed('a', 'template error');
    expect(s.list()[0]).toMatchObject({ outcome: 'failed', reason: 'template error' });
    expect(observed).toEqual([]);
  });

  it('ends an older run still open as superseded when a newer one is applied', () => {
    const { s } = recorder();
    s.changed('a', 'a', 100);
    s.triggered('a', 100, ['a']);
    s.changed('b', 'b', 110);
    s.triggered('b', 110, ['b']);
    s.stage('b', 'validate', 1);
    s.deploying('b', 0, 120);
    expect(s.list().map((c) => [c.correlationId, c.outcome])).toEqual([
      ['a', 'superseded'],
      ['b', 'applied'],
    ]);
  });

  it("attributes a pod's deployment to the run that rendered its hash, whatever its context", () => {
    const { s } = recorder();
    s.changed('a', 'a', 0);
    s.triggered('a', 0, ['a']);
    s.stage('a', 'render', 1, 'ha');
    s.deploying('a', 1, 5);
    s.changed('b', 'b', 6);
    s.triggered('b', 6, ['b']);
    s.stage('b', 'render', 1, 'hb');
    s.deploying('b', 1, 8);
    // b's deployment reported first (in whatever context the pod's worker ran), then a's
    s.deployed('hb', { pod: 'p', durationMs: 3, reloaded: false, stages: {} }, 11);
    s.deployed('ha', { pod: 'p', durationMs: 2, reloaded: false, stages: {} }, 12);
    s.deployed('hz', { pod: 'p', durationMs: 2, reloaded: false, stages: {} }, 13);
    expect(s.list().map((c) => [c.correlationId, c.outcome, c.stagesMs.applied])).toEqual([
      ['a', 'superseded', undefined],
      ['b', 'applied', 5],
    ]);
    expect(s.list()[1]?.pods.map((p) => p.durationMs)).toEqual([3]);
  });

  it('credits a deployment to every open run that rendered its hash, not only the newest (issue 37)', () => {
    const { s } = recorder();
    s.changed('ingress', 'Ingress ns/a', 0);
    s.triggered('ingress', 0, ['ingress']);
    s.stage('ingress', 'render', 20, 'h');
    s.deploying('ingress', 1, 30);
    // the controller's own status write renders the same while the deployment runs
    s.changed('status', 'Ingress ns/a', 40);
    s.triggered('status', 40, ['status']);
    s.stage('status', 'render', 2, 'h');
    s.deploying('status', 1, 45);
    s.deployed('h', { pod: 'p', durationMs: 600, reloaded: true, stages: {} }, 700);
    expect(s.list().map((c) => [c.correlationId, c.outcome, c.stagesMs.applied])).toEqual([
      ['status', 'applied', 660],
      ['ingress', 'applied', 700],
    ]);
  });

  it('keeps only the newest finished changes', () => {
    const { s } = recorder(3);
    for (let i = 0; i < 10; i++) {
      s.changed(`c${i}`, 'x', i);
      s.triggered(`c${i}`, i, [`c${i}`]);
      s.deploying(`c${i}`, 0, i);
    }
    expect(s.list().map((c) => c.correlationId)).toEqual(['c9', 'c8', 'c7']);
  });

  it('counts a pod that refused the configuration and reports the run failed', () => {
    const { s } = recorder();
    s.changed('a', 'a', 0);
    s.triggered('a', 0, ['a']);
    s.stage('a', 'render', 1, 'ha');
    s.deploying('a', 1, 5);
    s.deployed('ha', { pod: 'p', durationMs: 0, reloaded: false, stages: {}, error: 'refused' }, 9);
    expect(s.list()[0]).toMatchObject({ outcome: 'failed', reason: 'refused' });
  });
});
