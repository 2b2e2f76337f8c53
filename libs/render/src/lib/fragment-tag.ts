import { RenderTag, type Context, type Emitter, type Hash } from 'liquidjs';
import type { Fragment } from './fragments.js';
import { stateOf } from './state.js';
import { registerInto } from './tags.js';

type Gen<T = unknown> = Generator<unknown, T, unknown>;

/** The parts of liquidjs's render tag this one reads (private in its typings). */
interface RenderTagParts {
  readonly file: unknown;
  readonly hash: Hash;
  readonly with?: unknown;
  readonly forBinding?: unknown;
}

/** A cache key of the parameters: primitives by value, objects by identity (returned aside). */
function keyOf(args: Record<string, unknown>): { key: string; objects: unknown[] } {
  const objects: unknown[] = [];
  let key = '';
  for (const [name, value] of Object.entries(args)) {
    if (value !== null && (typeof value === 'object' || typeof value === 'function')) {
      objects.push(value);
      key += `${name}\u0000#${objects.length - 1}\u0001`;
    } else {
      key += `${name}\u0000${typeof value}:${String(value)}\u0001`;
    }
  }
  return { key, objects };
}

function sameObjects(a: readonly unknown[], b: readonly unknown[]): boolean {
  return a.length === b.length && a.every((o, i) => o === b[i]);
}

/** Collects a fragment's output aside, so it can be kept. */
class CapturingEmitter implements Emitter {
  buffer = '';
  write(html: unknown): void {
    // As liquidjs's own emitter: templates write strings; anything else as String() does.
    // eslint-disable-next-line @typescript-eslint/no-base-to-string
    this.buffer += typeof html === 'string' ? html : html == null ? '' : String(html);
  }
}

/**
 * `{% render "snippet", key: value %}` with a fragment cache: the snippet sees only its
 * parameters and the globals, so its output is reused while the parameters (objects by
 * identity), the globals it read, its snapshot look-ups and the lists it read are unchanged.
 * Registrations it made are replayed. `with`/`for` forms and dynamic names render as usual.
 */
export class FragmentRenderTag extends RenderTag {
  override *render(ctx: Context, emitter: Emitter): Gen<void> {
    const parts = this as unknown as RenderTagParts;
    const session = stateOf(ctx).fragments;
    if (typeof parts.file !== 'string' || parts.with || parts.forBinding || !session) {
      yield* super.render(ctx, emitter);
      return;
    }
    const { key, objects } = keyOf((yield parts.hash.render(ctx)) as Record<string, unknown>);
    const kept = session.cache.get(this, key);
    if (kept && sameObjects(kept.objects, objects) && session.valid(kept)) {
      if (this.replay(ctx, kept)) {
        kept.generation = session.cache.current;
        session.inherit(kept);
        emitter.write(kept.output);
        return;
      }
    }
    const capture = new CapturingEmitter();
    // Reads are recorded by every open recorder, so the fragments around this one get them too.
    const recorder = session.open();
    try {
      yield* super.render(ctx, capture);
    } finally {
      session.close(recorder);
    }
    session.cache.set(this, key, {
      objects,
      deps: [...recorder.deps.values()],
      output: capture.buffer,
      registrations: recorder.registrations,
      generation: session.cache.current,
    });
    emitter.write(capture.buffer);
  }

  /** Replays a kept fragment's registrations; false if one conflicts (render it to say why). */
  private replay(ctx: Context, fragment: Fragment): boolean {
    const state = stateOf(ctx);
    for (const r of fragment.registrations) {
      const had = state[r.registry].get(r.name);
      if (had !== undefined && had !== r.content) return false;
    }
    for (const r of fragment.registrations) registerInto(state, r);
    return true;
  }
}
