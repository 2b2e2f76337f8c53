import {
  Drop,
  RenderTag,
  evalToken,
  toValue,
  type Context,
  type Emitter,
  type Hash,
  type Liquid,
  type Template,
} from 'liquidjs';
import { PAUSE } from './drive.js';
import { RunsBuilder, type ListRuns } from './fragment-runs.js';
import { NO_ITEM, Recorder, type Fragment, type FragmentSession } from './fragments.js';
import { items } from './liquid-values.js';
import { innermostError, problemFrom } from './problems.js';
import { RejectedObjectsError } from './provenance.js';
import { stateOf } from './state.js';
import { registerInto } from './tags.js';
import type { RenderProblem } from './types.js';

type Gen<T = unknown> = Generator<unknown, T, unknown>;

/** The parts of liquidjs's render tag this one reads (private in its typings). */
interface RenderTagParts {
  readonly file: unknown;
  readonly hash: Hash;
  readonly with?: unknown;
  readonly forBinding?: { readonly value: { getText(): string }; readonly alias?: string };
  readonly currentFile?: string;
  readonly liquid: Liquid;
}

// A per-process id for each object a fragment is keyed by (objects by identity).
const IDS = new WeakMap<object, number>();
let nextId = 0;
function idOf(o: object): number {
  let id = IDS.get(o);
  if (id === undefined) IDS.set(o, (id = ++nextId));
  return id;
}

/** A cache key of the parameters: primitives by value, objects by identity. */
function keyOf(args: Record<string, unknown>): string {
  let key = '';
  for (const name in args) {
    const value = args[name];
    if (value !== null && (typeof value === 'object' || typeof value === 'function'))
      key += `${name}\u0000#${idOf(value)}\u0001`;
    else key += `${name}\u0000${typeof value}:${String(value)}\u0001`;
  }
  return key;
}

const NO_REGISTRATIONS: readonly never[] = Object.freeze([]);

/** Collects a fragment's output aside, so it can be kept (as one flat string). */
class CapturingEmitter implements Emitter {
  private readonly parts: string[] = [];
  write(html: unknown): void {
    // As liquidjs's own emitter: templates write strings; anything else as String() does.
    // eslint-disable-next-line @typescript-eslint/no-base-to-string
    this.parts.push(typeof html === 'string' ? html : html == null ? '' : String(html));
  }
  /** The output: joined, so a kept fragment holds one string, not the pieces it was made of. */
  get buffer(): string {
    return this.parts.join('');
  }
}

/** The problems of an item's failure when each names its object; else the error itself. */
function attributed(err: unknown, file: string): readonly RenderProblem[] {
  const cause = innermostError(err);
  const problems =
    cause instanceof RejectedObjectsError ? cause.problems : [problemFrom(err, file, 'render')];
  if (problems.some((p) => p.object === undefined)) throw err;
  return problems;
}

/** Where an item of `{% render ... for %}` is rendered: forloop's values. */
interface Position {
  readonly index: number;
  readonly length: number;
  readonly name: string;
}

const positionKey = (p: Position): string => `${p.index}/${p.length}/${p.name}`;

/**
 * `forloop` of a `render ... for` item, as liquidjs's own: reading it makes the item's fragment
 * depend on its position (a fragment that never reads it is reused wherever its item moves).
 */
class PositionDrop extends Drop {
  constructor(
    private readonly at: Position,
    private readonly recorder: Recorder,
  ) {
    super();
  }
  private read(): Position {
    this.recorder.position = true;
    return this.at;
  }
  get length(): number {
    return this.read().length;
  }
  get name(): string {
    return this.read().name;
  }
  index0(): number {
    return this.read().index;
  }
  index(): number {
    return this.read().index + 1;
  }
  first(): boolean {
    return this.read().index === 0;
  }
  last(): boolean {
    const p = this.read();
    return p.index === p.length - 1;
  }
  rindex(): number {
    const p = this.read();
    return p.length - p.index;
  }
  rindex0(): number {
    const p = this.read();
    return p.length - p.index - 1;
  }
  override valueOf(): string {
    const p = this.read();
    return JSON.stringify({ i: p.index, length: p.length, name: p.name });
  }
}

/**
 * `{% render "snippet", key: value %}` and `{% render "snippet" for list as item, key: value %}`
 * with a fragment cache: the snippet sees only its parameters (and, for each item, the item) and
 * the globals, so its output is reused while the parameters (objects by identity), the globals
 * it read, its snapshot look-ups and the lists it read are unchanged; an item's fragment that
 * read `forloop` also needs the same position. Registrations it made are replayed. The `for`
 * form loops in typed code, so a list of unchanged items costs a check per item. `with` forms
 * and dynamic names render as usual.
 */
export class FragmentRenderTag extends RenderTag {
  private templates: Template[] | undefined;
  /** The runs of the list as this tag last wrote it (a `for` form with a fragment cache). */
  private lastRuns: ListRuns | undefined;

  override *render(ctx: Context, emitter: Emitter): Gen<void> {
    const parts = this as unknown as RenderTagParts;
    const session = stateOf(ctx).fragments;
    const file = parts.file;
    const loop = parts.forBinding;
    if (typeof file !== 'string' || parts.with || (loop && !loop.alias) || (!loop && !session)) {
      yield* super.render(ctx, emitter);
      return;
    }
    const params = (yield parts.hash.render(ctx)) as Record<string, unknown>;
    if (!loop?.alias) {
      if (!session) return;
      const key = keyOf(params);
      const kept = session.cache.get(this, key);
      if (kept && this.reused(ctx, emitter, session, kept, undefined)) return;
      yield* this.rendered(ctx, emitter, session, file, params, key, NO_ITEM, undefined);
      return;
    }
    const collection = items(toValue(yield evalToken(loop.value as never, ctx)));
    const name = `${loop.alias}-${loop.value.getText()}`;
    // The items' fragments share the parameters: one key, then the item by identity.
    const key = session ? `${keyOf(params)}${loop.alias}\u0002` : '';
    const kept = session?.cache.entries(this, key);
    // An item refused because of one watched object does not stop the loop: every such object
    // is reported at once, so quarantining several costs one more render, not one each.
    const refused: RenderProblem[] = [];
    const pacer = stateOf(ctx).pacer;
    const length = collection.length;
    // Runs of kept items are written whole (not in a dry run, nor inside a fragment: then each
    // item's reads and registrations are passed on one by one).
    const building =
      session && !session.reuseOnly && !session.recording ? new RunsBuilder(session) : undefined;
    const runs = session && building ? this.runsFor(session, key) : undefined;
    let sincePause = 16;
    for (let index = 0; index < length;) {
      // A long list gives way to the event loop between items (a yielding render only; the
      // clock is read every few items: a kept item costs less than reading it).
      if (sincePause >= 16) {
        sincePause = 0;
        if (pacer?.due() === true) yield PAUSE;
      }
      const run = building && runs?.at(collection, index);
      if (run && building.takes(run, index, length)) {
        building.reused(run);
        emitter.write(run.output);
        index += run.items.length;
        sincePause += 16;
        continue;
      }
      const item = collection[index];
      const at = { index, length, name };
      index++;
      sincePause++;
      const fragment = kept?.get(item);
      if (session && fragment && this.reused(ctx, emitter, session, fragment, at)) {
        building?.item(item, fragment);
        continue;
      }
      const scope = { ...params, [loop.alias]: item };
      try {
        if (session) {
          const made = yield* this.rendered(ctx, emitter, session, file, scope, key, item, at);
          building?.item(item, made);
        } else {
          yield* this.uncached(ctx, emitter, file, scope, at);
        }
      } catch (err) {
        building?.item(item, undefined);
        refused.push(...attributed(err, file));
      }
    }
    if (refused.length > 0) throw new RejectedObjectsError(refused);
    if (building) this.lastRuns = building.done(key);
  }

  /** The runs of this list as the last render wrote it, if with the same cache and parameters. */
  private runsFor(session: FragmentSession, key: string): ListRuns | undefined {
    const runs = this.lastRuns;
    return runs && runs.cache === session.cache && runs.key === key ? runs : undefined;
  }

  /** One item without a fragment cache (a full render): rendered as it is. */
  private *uncached(
    ctx: Context,
    emitter: Emitter,
    file: string,
    scope: Record<string, unknown>,
    at: Position,
  ): Gen<void> {
    // Output only once the item rendered completely (an item refused writes nothing).
    const capture = new CapturingEmitter();
    yield* this.renderSnippet(ctx, capture, file, scope, new PositionDrop(at, new Recorder()));
    emitter.write(capture.buffer);
  }

  /** Writes a kept fragment when it is still valid (true), else nothing (false). */
  private reused(
    ctx: Context,
    emitter: Emitter,
    session: FragmentSession,
    kept: Fragment,
    at: Position | undefined,
  ): boolean {
    if (kept.position !== undefined && (!at || kept.position !== positionKey(at))) return false;
    if (!session.valid(kept) || !this.replay(ctx, kept)) return false;
    session.used(kept);
    session.inherit(kept);
    emitter.write(kept.output);
    return true;
  }

  /** One fragment rendered and kept (by parameters `key` and list `item`). */
  private *rendered(
    ctx: Context,
    emitter: Emitter,
    session: FragmentSession,
    file: string,
    scope: Record<string, unknown>,
    key: string,
    item: unknown,
    at: Position | undefined,
  ): Gen<Fragment> {
    const capture = new CapturingEmitter();
    // Reads are recorded by every open recorder, so the fragments around this one get them too.
    const recorder = session.open();
    try {
      yield* this.renderSnippet(
        ctx,
        capture,
        file,
        scope,
        at ? new PositionDrop(at, recorder) : undefined,
      );
    } finally {
      session.close(recorder);
    }
    const output = capture.buffer;
    const registrations =
      recorder.registrations.length > 0 ? recorder.registrations : NO_REGISTRATIONS;
    const fragment: Fragment = {
      deps: [...recorder.deps.values()],
      output,
      registrations,
      generation: session.cache.current,
      ...(recorder.position && at !== undefined ? { position: positionKey(at) } : {}),
    };
    session.keep(this, key, item, fragment);
    emitter.write(output);
    return fragment;
  }

  /** Renders the snippet in an isolated scope, as liquidjs's render tag does. */
  private *renderSnippet(
    ctx: Context,
    emitter: Emitter,
    file: string,
    scope: Record<string, unknown>,
    forloop: PositionDrop | undefined,
  ): Gen<void> {
    const parts = this as unknown as RenderTagParts;
    const child = ctx.spawn();
    Object.assign(child.bottom(), scope, forloop ? { forloop } : {});
    // Parsed once per config version (the engine never evicts): kept here, not looked up per item.
    const templates = (this.templates ??= (yield parts.liquid._parsePartialFile(
      file,
      child.sync,
      parts.currentFile,
    )) as Template[]);
    yield parts.liquid.renderer.renderTemplates(templates, child, emitter);
  }

  /** Replays a kept fragment's registrations; false if one conflicts (render it to say why). */
  private replay(ctx: Context, fragment: Fragment): boolean {
    if (fragment.registrations.length === 0) return true;
    const state = stateOf(ctx);
    for (const r of fragment.registrations) {
      const had = state[r.registry].get(r.name);
      if (had !== undefined && had !== r.content) return false;
    }
    for (const r of fragment.registrations) registerInto(state, r);
    return true;
  }
}
