import type { Context } from 'liquidjs';
import { objectRef } from './snapshot.js';
import { stateOf } from './state.js';
import type { ObjectRef, RenderProblem, RenderProblemCode } from './types.js';

/** An error raised while rendering, with the watched object it is attributed to (if any). */
export class TemplateValueError extends Error {
  constructor(
    readonly code: RenderProblemCode,
    message: string,
    readonly object?: ObjectRef,
    readonly rendering?: ObjectRef,
  ) {
    super(message);
    this.name = 'TemplateValueError';
  }

  /** An error attributed to `object` when known, else located by the object being rendered. */
  static at(
    ctx: Context,
    code: RenderProblemCode,
    message: string,
    object?: ObjectRef,
  ): TemplateValueError {
    return object
      ? new TemplateValueError(code, message, object)
      : new TemplateValueError(code, message, undefined, innermostObject(ctx));
  }
}

/**
 * An error of filter `name` as the render reports it: a TemplateValueError as it is, any other
 * named after the filter (once) and located by the object being rendered.
 */
export function filterError(ctx: Context, name: string, err: unknown): Error {
  if (err instanceof TemplateValueError) return err;
  const reason = err instanceof Error ? err.message : String(err);
  const message = reason.startsWith(`${name}:`) ? reason : `${name}: ${reason}`;
  return TemplateValueError.at(ctx, 'render', message);
}

/**
 * Objects refused all at once (by a context provider that checks every object it reads): each
 * problem names its object; the renderer quarantines them together and renders once more.
 */
export class RejectedObjectsError extends Error {
  constructor(readonly problems: readonly RenderProblem[]) {
    super(problems.map((p) => p.message).join('; '));
    this.name = 'RejectedObjectsError';
  }
}

const MAX_LEAVES = 5_000;
const MAX_DEPTH = 16;

function stringLeaves(value: unknown, out: string[], depth = 0): void {
  if (out.length >= MAX_LEAVES || depth > MAX_DEPTH) return;
  if (typeof value === 'string') out.push(value);
  else if (value !== null && typeof value === 'object') {
    for (const v of Object.values(value)) stringLeaves(v, out, depth + 1);
  }
}

function watchedObjects(ctx: Context): Map<object, ObjectRef> {
  const state = stateOf(ctx);
  const refs = new Map<object, ObjectRef>();
  for (const watched of state.watchedNames) {
    for (const obj of state.snapshot.list(watched)) refs.set(obj, objectRef(watched, obj));
  }
  return refs;
}

/** Watched objects bound to variables in the current scopes, innermost first. */
function inScope(ctx: Context, refs: Map<object, ObjectRef>): [object, ObjectRef][] {
  const scopes = (ctx as unknown as { scopes: object[] }).scopes;
  const found: [object, ObjectRef][] = [];
  for (let i = scopes.length - 1; i >= 0; i--) {
    for (const v of Object.values(scopes[i] ?? {}) as unknown[]) {
      const ref = v !== null && typeof v === 'object' ? refs.get(v) : undefined;
      if (ref && !found.some(([o]) => o === v)) found.push([v as object, ref]);
    }
  }
  return found;
}

export type Explains = (leaf: string) => boolean;

/**
 * The watched object a value came from: first an object in scope whose fields explain it, then any
 * object in the snapshot whose fields explain it; undefined when no object does.
 */
export function attributeValue(ctx: Context, explains: Explains): ObjectRef | undefined {
  const refs = watchedObjects(ctx);
  const matches = (obj: object): boolean => {
    const leaves: string[] = [];
    stringLeaves(obj, leaves);
    return leaves.some(explains);
  };
  for (const [obj, ref] of inScope(ctx, refs)) if (matches(obj)) return ref;
  for (const [obj, ref] of refs) if (matches(obj)) return ref;
  return undefined;
}

/** The innermost watched object in scope: the object being rendered when a `fail` runs. */
export function innermostObject(ctx: Context): ObjectRef | undefined {
  return inScope(ctx, watchedObjects(ctx))[0]?.[1];
}

/** A leaf explains a value when one holds the other (short leaves only by equality). */
export function sameValue(value: string): Explains {
  return (leaf) =>
    leaf === value || (leaf.length >= 4 && (value.includes(leaf) || leaf.includes(value)));
}
