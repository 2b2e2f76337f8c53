import { celEnv, isCelError, parse, plan, type CelInput } from '@bufbuild/cel';

/** One `matchConditions` entry of a webhook. */
export interface MatchCondition {
  name?: string;
  expression?: string;
}

/** The variables the API server binds for a webhook's matchConditions (`authorizer` is not offered). */
export const MATCH_CONDITION_VARIABLES = ['object', 'oldObject', 'request', 'namespaceObject'];

/** The API server's limit on matchConditions per webhook. */
export const MAX_MATCH_CONDITIONS = 64;

// A qualified name as the API server checks it for matchConditions[].name (a label key).
const QUALIFIED =
  /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;

type Expr = ReturnType<typeof parse>['expr'];

/** Identifiers an expression reads that neither the environment nor a comprehension declares. */
function undeclared(e: Expr | undefined, bound: Set<string>, out: Set<string>): void {
  if (!e) return;
  const k = e.exprKind;
  switch (k.case) {
    case 'identExpr':
      if (!bound.has(k.value.name)) out.add(k.value.name);
      return;
    case 'selectExpr':
      return undeclared(k.value.operand, bound, out);
    case 'callExpr':
      undeclared(k.value.target, bound, out);
      return k.value.args.forEach((a) => undeclared(a, bound, out));
    case 'listExpr':
      return k.value.elements.forEach((a) => undeclared(a, bound, out));
    case 'structExpr':
      return k.value.entries.forEach((en) => {
        if (en.keyKind.case === 'mapKey') undeclared(en.keyKind.value, bound, out);
        undeclared(en.value, bound, out);
      });
    case 'comprehensionExpr': {
      const c = k.value;
      undeclared(c.iterRange, bound, out);
      undeclared(c.accuInit, bound, out);
      const inner = new Set([...bound, c.iterVar, c.iterVar2, c.accuVar].filter(Boolean));
      for (const x of [c.loopCondition, c.loopStep, c.result]) undeclared(x, inner, out);
      return;
    }
    case 'constExpr':
    case undefined:
      return;
  }
}

/** Compiles one expression as the API server's webhook CEL environment would; the error text, or undefined. */
export function compileError(expression: string): string | undefined {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(expression);
  } catch (e) {
    return `compilation failed: ERROR: ${e instanceof Error ? e.message : String(e)}`;
  }
  const missing = new Set<string>();
  undeclared(parsed.expr, new Set(MATCH_CONDITION_VARIABLES), missing);
  const first = [...missing][0];
  return first === undefined
    ? undefined
    : `compilation failed: ERROR: <input>: undeclared reference to '${first}'`;
}

/** The API server's field checks of one webhook's matchConditions (ValidateValidatingWebhookConfiguration). */
export function validateMatchConditions(
  f: string,
  conditions: MatchCondition[],
): { field: string; message: string }[] {
  const out: { field: string; message: string }[] = [];
  const err = (field: string, message: string) =>
    out.push({ field, message: `${field}: ${message}` });
  if (conditions.length > MAX_MATCH_CONDITIONS)
    err(`${f}.matchConditions`, `Too many: ${conditions.length}: must have at most 64 items`);
  const seen = new Set<string>();
  conditions.forEach((c, i) => {
    const at = `${f}.matchConditions[${i}]`;
    if (!c.name) err(`${at}.name`, 'Required value');
    else if (!QUALIFIED.test(c.name))
      err(`${at}.name`, `Invalid value: "${c.name}": must be a qualified name`);
    else if (seen.has(c.name)) err(`${at}.name`, `Duplicate value: "${c.name}"`);
    if (c.name) seen.add(c.name);
    if (!c.expression) {
      err(`${at}.expression`, 'Required value');
      return;
    }
    const why = compileError(c.expression);
    if (why) err(`${at}.expression`, `Invalid value: "${c.expression}": ${why}`);
  });
  return out;
}

/** What the matcher decided: call the webhook, skip it, or an evaluation error for failurePolicy. */
export type MatchOutcome = { match: true } | { match: false } | { error: string };

const env = celEnv();

/**
 * Evaluates matchConditions as the API server's matcher does: any condition false skips the
 * webhook (even when another one errs); otherwise any error is returned for failurePolicy to
 * decide; all true calls it. A non-bool result is an error, as the API server's type check would
 * refuse it.
 */
export function evaluateMatchConditions(
  conditions: MatchCondition[],
  vars: Record<string, unknown>,
): MatchOutcome {
  const errors: string[] = [];
  for (const c of conditions) {
    let result: unknown;
    try {
      result = plan(env, parse(c.expression ?? ''))(vars as Record<string, CelInput>);
    } catch (e) {
      result = e;
    }
    if (result === false) return { match: false };
    if (result === true) continue;
    const why = isCelError(result) || result instanceof Error ? result.message : 'not a bool';
    errors.push(`expression '${c.expression ?? ''}' resulted in error: ${why}`);
  }
  return errors.length ? { error: errors.join(', ') } : { match: true };
}
