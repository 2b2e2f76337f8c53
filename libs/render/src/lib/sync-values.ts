// Simple values without generators. liquidjs evaluates every value as a tree of generators (one
// per token, property path and filter), run by the driver one step at a time: `{{ a.b | f: c.d }}`
// is some forty steps. Most values are constants and property paths, whose evaluation is
// synchronous in a synchronous render (property reads, filter calls); this module evaluates
// those directly, with liquidjs's own semantics (scope look-up, lenient reads, the errors it
// wraps), and leaves every other value (ranges, operators, strict variables, an asynchronous
// render) to liquidjs as it is. Installed once, on liquidjs's prototypes, by the engine module.
import {
  Expression,
  Filter,
  TypeGuards,
  UndefinedVariableError,
  Value,
  toValueSync,
  type Context,
  type Token,
} from 'liquidjs';

/** A token's value in a synchronous render, or undefined when it needs liquidjs's generators. */
type SyncEval = (ctx: Context, lenient: boolean) => unknown;

/** The parts of liquidjs's context and filter this module reads (private in its typings). */
interface ContextParts {
  findScope(key: unknown): unknown;
  readProperty(obj: unknown, key: unknown): unknown;
}
interface FilterParts {
  readonly args: readonly unknown[];
  readonly handler: (...args: unknown[]) => unknown;
  readonly token: unknown;
  readonly liquid: unknown;
}

function isIterator(v: unknown): boolean {
  if (v === null || typeof v !== 'object') return false;
  const i = v as Partial<Record<'next' | 'throw' | 'return', unknown>>;
  return (
    typeof i.next === 'function' && typeof i.throw === 'function' && typeof i.return === 'function'
  );
}

/** A property path's keys when each is a constant (string or number), else undefined. */
function constantKeys(props: readonly Token[]): (string | number)[] | undefined {
  const keys: (string | number)[] = [];
  for (const p of props) {
    const content = 'content' in p ? (p as { content: unknown }).content : undefined;
    if (typeof content !== 'string' && typeof content !== 'number') return undefined;
    keys.push(content);
  }
  return keys;
}

/**
 * As liquidjs's `evalToken` for a constant (its content) or a property path of constant keys
 * (`a.b["c"][0]`: the innermost scope holding `a`, then each key read as `readProperty` does; a
 * read that throws is wrapped in UndefinedVariableError).
 */
function syncEvalOf(token: Token | undefined): SyncEval | undefined {
  if (!token) return () => undefined;
  if ('content' in token) {
    const content = (token as { content: unknown }).content;
    return () => content;
  }
  if (!TypeGuards.isPropertyAccessToken(token) || token.variable) return undefined;
  const keys = constantKeys(token.props);
  if (!keys || keys.length === 0) return undefined;
  return (ctx, lenient) => {
    const c = ctx as unknown as ContextParts;
    try {
      let scope = c.findScope(keys[0]);
      for (const key of keys) {
        scope = c.readProperty(scope, key);
        // As the generator's `yield` would: an iterator read is run for its value.
        if (isIterator(scope)) scope = toValueSync(scope);
      }
      return scope;
    } catch (e) {
      if (lenient && (e as { name?: unknown }).name === 'InternalUndefinedVariableError')
        return null;
      throw new UndefinedVariableError(e as Error, token);
    }
  };
}

/** Whether a render may evaluate values here (synchronous, lenient about undefined variables). */
function syncRender(ctx: Context): boolean {
  return ctx.sync && !ctx.strictVariables;
}

// Each value's plan, made on first use: null when it needs liquidjs's generators.
const EXPRESSIONS = new WeakMap<Expression, SyncEval | null>();
const FILTERS = new WeakMap<Filter, SyncEval[] | null>();
const VALUES = new WeakMap<Value, boolean>();

function expressionPlan(e: Expression): SyncEval | null {
  let plan = EXPRESSIONS.get(e);
  if (plan === undefined) {
    plan = e.postfix.length === 1 ? (syncEvalOf(e.postfix[0]) ?? null) : null;
    EXPRESSIONS.set(e, plan);
  }
  return plan;
}

function filterPlan(f: Filter): SyncEval[] | null {
  let plan = FILTERS.get(f);
  if (plan === undefined) {
    plan = [];
    for (const arg of (f as unknown as FilterParts).args) {
      // `key: value` arguments stay with liquidjs.
      const evaluate = Array.isArray(arg) ? undefined : syncEvalOf(arg as Token);
      if (!evaluate) {
        plan = null;
        break;
      }
      plan.push(evaluate);
    }
    FILTERS.set(f, plan);
  }
  return plan;
}

function valuePlan(v: Value): boolean {
  let plan = VALUES.get(v);
  if (plan === undefined) {
    plan = expressionPlan(v.initial) !== null && v.filters.every((f) => filterPlan(f) !== null);
    VALUES.set(v, plan);
  }
  return plan;
}

/** The filter applied as liquidjs's `Filter.render` applies it, its arguments evaluated here. */
function applyFilter(f: Filter, plan: readonly SyncEval[], value: unknown, ctx: Context): unknown {
  const parts = f as unknown as FilterParts;
  const argv: unknown[] = [value];
  for (const evaluate of plan) argv.push(evaluate(ctx, false));
  return parts.handler.apply({ context: ctx, token: parts.token, liquid: parts.liquid }, argv);
}

let installed = false;

/**
 * Installs the synchronous evaluation of simple values on liquidjs's Expression, Filter and
 * Value. Each gives a plain value where it gave a generator, which every caller `yield`s (a
 * plain value is handed back as it is; an iterator result is still run): same values, same
 * errors, at the same points.
 */
export function installSyncValues(): void {
  if (installed) return;
  installed = true;
  // Each original is kept to be called with its own `this`.
  // eslint-disable-next-line @typescript-eslint/unbound-method
  const evaluate = Expression.prototype.evaluate;
  Expression.prototype.evaluate = function (this: Expression, ctx: Context, lenient = false) {
    const plan = syncRender(ctx) ? expressionPlan(this) : null;
    if (!plan) return evaluate.call(this, ctx, lenient);
    return plan(ctx, lenient) as never;
  };
  // eslint-disable-next-line @typescript-eslint/unbound-method
  const render = Filter.prototype.render;
  Filter.prototype.render = function (this: Filter, value: unknown, ctx: Context) {
    const plan = syncRender(ctx) ? filterPlan(this) : null;
    if (!plan) return render.call(this, value, ctx);
    return applyFilter(this, plan, value, ctx) as never;
  };
  // eslint-disable-next-line @typescript-eslint/unbound-method
  const valueOf = Value.prototype.value;
  Value.prototype.value = function (this: Value, ctx: Context, lenient = false) {
    if (!syncRender(ctx) || !valuePlan(this)) return valueOf.call(this, ctx, lenient);
    const opts = ctx.opts as { lenientIf?: boolean };
    const first = this.filters[0];
    const len =
      lenient || (opts.lenientIf === true && first !== undefined && first.name === 'default');
    let val = (expressionPlan(this.initial) as SyncEval)(ctx, len);
    for (const f of this.filters) {
      val = applyFilter(f, filterPlan(f) as SyncEval[], val, ctx);
      if (isIterator(val)) val = toValueSync(val);
    }
    return val as never;
  };
}
