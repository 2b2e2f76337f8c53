// A yielding render gives way to the event loop during a long render (the leader's lease renewal
// is a timer), and renders the same bytes as the synchronous one.
import { describe, expect, it } from 'vitest';
import { snapshotOf } from '#index';
import { compileTemplates, type CompiledTemplates } from './compile.js';
import { render, renderYielding } from './render.js';
import { specOf } from './spec-fixture.test.js';
import type { RenderResult, RenderSnapshot } from './types.js';

const SIZE = 3000;

function setup(bad = false): { compiled: CompiledTemplates; snapshot: RenderSnapshot } {
  // One fragment per Ingress, each with a little Liquid work (and, when `bad`, one that fails
  // and is quarantined, so a second attempt runs).
  const compiled = compileTemplates(
    specOf({
      haproxy:
        '{%- render "one" for resources.ingresses as ing -%}\n{{ resources.ingresses.size }}',
      snippets: {
        one: '{%- if ing.metadata.name == "bad" -%}{%- fail "bad one" -%}{%- endif -%}{%- for i in (1..5) -%}{{ ing.metadata.name | upcase | append: i }} {% endfor %}\n',
      },
    }),
  );
  if (!compiled.ok) throw new Error(JSON.stringify(compiled.error));
  const ingresses = Array.from({ length: SIZE }, (_, i) => ({
    kind: 'Ingress',
    metadata: {
      namespace: 'ns',
      name: bad && i === 7 ? 'bad' : `ing-${String(i).padStart(5, '0')}`,
    },
  }));
  const snapshot = snapshotOf(
    { ingresses: ['metadata.namespace', 'metadata.name'] },
    { ingresses },
  );
  return { compiled: compiled.value, snapshot };
}

/** Runs `work` with a 0 ms timer set just before it: whether the timer fired before it ended. */
async function timerFiredDuring(work: () => Promise<RenderResult>) {
  let fired = 0;
  const timer = setInterval(() => void fired++, 0);
  try {
    const result = await work();
    return { fired, result };
  } finally {
    clearInterval(timer);
  }
}

describe('renderYielding', () => {
  it('lets timers run during a long render and renders what render does', async () => {
    const { compiled, snapshot } = setup();
    const sync = await timerFiredDuring(() =>
      Promise.resolve(render(compiled, snapshot, { incremental: false })),
    );
    // The control: a synchronous render holds the event loop until it is done.
    expect(sync.fired).toBe(0);
    const yielding = await timerFiredDuring(() =>
      renderYielding(compiled, snapshot, { incremental: false }, { sliceMs: 1 }),
    );
    expect(yielding.fired).toBeGreaterThan(0);
    expect(yielding.result).toEqual(sync.result);
    expect(sync.result.ok && sync.result.attempts).toBe(1);
  });

  it('renders what render does across a quarantine retry', async () => {
    const { compiled, snapshot } = setup(true);
    const sync = render(compiled, snapshot, { incremental: false });
    expect(sync.ok && sync.quarantined.map((q) => q.object.name)).toEqual(['bad']);
    expect(sync.attempts).toBe(2);
    const yielding = await renderYielding(
      compiled,
      snapshot,
      { incremental: false },
      { sliceMs: 1 },
    );
    expect(yielding).toEqual(sync);
  });

  it('incremental: reuses and keeps fragments as render does', async () => {
    const { compiled, snapshot } = setup();
    const first = await renderYielding(compiled, snapshot, {}, { sliceMs: 1 });
    const again = await timerFiredDuring(() =>
      renderYielding(compiled, snapshot, {}, { sliceMs: 0 }),
    );
    expect(again.result).toEqual(first);
    expect(again.result).toEqual(render(compiled, snapshot, { incremental: false }));
  });

  it('passes errors of the templates through as problems', async () => {
    const compiled = compileTemplates(
      specOf({
        haproxy: '{% render "x" for resources.ingresses as ing %}',
        snippets: { x: '{{ ing.metadata.name | int_range: 1, 2 }}' },
      }),
    );
    if (!compiled.ok) throw new Error(JSON.stringify(compiled.error));
    const snapshot = snapshotOf(
      { ingresses: ['metadata.namespace', 'metadata.name'] },
      { ingresses: [{ kind: 'Ingress', metadata: { namespace: 'a', name: 'n' } }] },
    );
    const expected = render(compiled.value, snapshot, { incremental: false, maxQuarantine: 0 });
    expect(expected.ok).toBe(false);
    await expect(
      renderYielding(
        compiled.value,
        snapshot,
        { incremental: false, maxQuarantine: 0 },
        { sliceMs: 0 },
      ),
    ).resolves.toEqual(expected);
  });
});
