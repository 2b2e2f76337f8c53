/**
 * Kubernetes label selectors in their full string syntax: `a=b`, `a==b`, `a!=b`, `a in (x,y)`,
 * `a notin (x)`, `a` (exists), `!a` (does not exist), joined by commas.
 */
export type SelectorOperator = 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';

export interface SelectorRequirement {
  readonly key: string;
  readonly operator: SelectorOperator;
  readonly values: readonly string[];
}

const KEY =
  /^(?:[a-z0-9]([-a-z0-9]*[a-z0-9])?(?:\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const VALUE = /^(?:[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$/;

/** Splits on commas that are not inside parentheses. */
function splitTerms(text: string): string[] | undefined {
  const terms: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '(') depth++;
    else if (c === ')') depth--;
    if (depth < 0 || depth > 1) return undefined;
    if (c === ',' && depth === 0) {
      terms.push(text.slice(start, i));
      start = i + 1;
    }
  }
  if (depth !== 0) return undefined;
  terms.push(text.slice(start));
  return terms.map((t) => t.trim());
}

function parseTerm(term: string): SelectorRequirement | string {
  const set = /^(\S+)\s+(in|notin)\s*\(([^()]*)\)$/.exec(term);
  if (set) {
    const values = set[3]!.split(',').map((v) => v.trim());
    if (values.some((v) => !VALUE.test(v))) return `invalid value in "${term}"`;
    return { key: set[1]!, operator: set[2] === 'in' ? 'In' : 'NotIn', values };
  }
  const eq = /^([^=!\s]+)\s*(==|=|!=)\s*(\S*)$/.exec(term);
  if (eq) {
    if (!VALUE.test(eq[3]!)) return `invalid value in "${term}"`;
    return { key: eq[1]!, operator: eq[2] === '!=' ? 'NotIn' : 'In', values: [eq[3]!] };
  }
  if (term.startsWith('!'))
    return { key: term.slice(1).trim(), operator: 'DoesNotExist', values: [] };
  return { key: term, operator: 'Exists', values: [] };
}

/** Parses a selector string; returns the requirements, or a reason when it is malformed. */
export function parseLabelSelector(
  text: string,
): readonly SelectorRequirement[] | { readonly error: string } {
  if (text.trim() === '') return [];
  const terms = splitTerms(text);
  if (!terms) return { error: 'unbalanced parentheses' };
  const out: SelectorRequirement[] = [];
  for (const term of terms) {
    if (term === '') return { error: 'empty term' };
    const r = parseTerm(term);
    if (typeof r === 'string') return { error: r };
    if (!KEY.test(r.key)) return { error: `invalid label key "${r.key}"` };
    out.push(r);
  }
  return out;
}

/** True when `labels` satisfy every requirement. */
export function matchesLabelSelector(
  requirements: readonly SelectorRequirement[],
  labels: Readonly<Record<string, string>> | undefined,
): boolean {
  return requirements.every((r) => {
    const has = labels !== undefined && Object.prototype.hasOwnProperty.call(labels, r.key);
    const value = has ? labels[r.key] : undefined;
    switch (r.operator) {
      case 'In':
        return has && r.values.includes(value!);
      case 'NotIn':
        return !has || !r.values.includes(value!);
      case 'Exists':
        return has;
      case 'DoesNotExist':
        return !has;
    }
  });
}

/** The reason a selector string is refused, or undefined when it is fine. */
export function labelSelectorProblem(text: unknown): string | undefined {
  if (typeof text !== 'string') return 'must be a label selector string';
  const parsed = parseLabelSelector(text);
  return 'error' in parsed ? `not a valid label selector: ${parsed.error}` : undefined;
}
