import { describe, expect, it } from 'vitest';
import { desiredConditions, mergeConditions } from './conditions.js';
import { WorldTracker } from './world-tracker.js';

const byType = (w: WorldTracker) =>
  Object.fromEntries(desiredConditions(w.current).map((c) => [c.type, [c.status, c.reason]]));

describe('config conditions', () => {
  it('valid, rendered and deployed to every pod: Ready', () => {
    const w = new WorldTracker();
    w.pods(['ns/p1', 'ns/p2']);
    w.accepted(3);
    w.rendered('h1');
    w.validated('h1', 3);
    w.deployed('ns/p1', 'h1', true, 't');
    expect(byType(w)).toMatchObject({
      Deployed: ['False', 'Deploying'],
      Ready: ['False', 'Deploying'],
    });
    w.deployed('ns/p2', 'h1', false, 't');
    expect(byType(w)).toEqual({
      Valid: ['True', 'Accepted'],
      Rendered: ['True', 'Rendered'],
      Deployed: ['True', 'Deployed'],
      Ready: ['True', 'Serving'],
    });
  });

  it('an invalid generation: Valid False at its generation, the previous one keeps serving', () => {
    const w = new WorldTracker();
    w.pods(['ns/p1']);
    w.accepted(1);
    w.rendered('h1');
    w.validated('h1', 1);
    w.deployed('ns/p1', 'h1', true, 't');
    w.rejected(2, 'spec.x: bad');
    const c = desiredConditions(w.current);
    expect(c[0]).toMatchObject({
      type: 'Valid',
      status: 'False',
      reason: 'InvalidSpec',
      message: 'spec.x: bad',
      observedGeneration: 2,
    });
    expect(c[3]).toMatchObject({
      status: 'False',
      message: 'generation 2 is not served; generation 1 keeps serving',
    });
    w.accepted(3);
    expect(byType(w).Valid).toEqual(['True', 'Accepted']);
  });

  it('a failed deployment and a quarantine are named', () => {
    const w = new WorldTracker();
    w.pods(['ns/p1']);
    w.accepted(1);
    w.quarantined();
    w.rendered('h1');
    w.validated('h1', 1);
    w.deployFailed('ns/p1', 'connection refused');
    expect(byType(w)).toMatchObject({
      Rendered: ['True', 'RenderedWithQuarantine'],
      Deployed: ['False', 'DeploymentFailed'],
    });
    expect(desiredConditions(w.current)[2]?.message).toContain('ns/p1: connection refused');
  });

  it('keeps lastTransitionTime while a status holds', () => {
    const stored = mergeConditions(
      [],
      [{ type: 'Valid', status: 'True', reason: 'A', message: '' }],
      't1',
    );
    const same = mergeConditions(
      stored,
      [{ type: 'Valid', status: 'True', reason: 'B', message: 'x' }],
      't2',
    );
    const flipped = mergeConditions(
      same,
      [{ type: 'Valid', status: 'False', reason: 'C', message: '' }],
      't3',
    );
    expect([same[0]?.lastTransitionTime, flipped[0]?.lastTransitionTime]).toEqual(['t1', 't3']);
  });
});
