import type { ResourceType } from './resource-type.js';
import { errors } from './status.js';
import type { KubeObject } from './types.js';

type Requirement =
  | { op: 'in' | 'notin'; key: string; values: string[] }
  | { op: 'exists' | '!exists'; key: string }
  | { op: 'gt' | 'lt'; key: string; value: number };

/** A parsed label selector: every requirement must hold. */
export type LabelSelector = readonly Requirement[];

const keyRe =
  /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
const valueRe = /^(([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9])?$/;

function checkKey(key: string, selector: string): string {
  if (!keyRe.test(key))
    throw errors.badRequest(
      `unable to parse requirement: invalid label key "${key}" in selector "${selector}"`,
    );
  return key;
}

function checkValue(v: string, selector: string): string {
  if (!valueRe.test(v))
    throw errors.badRequest(
      `unable to parse requirement: invalid label value: "${v}" in selector "${selector}"`,
    );
  return v;
}

/** Splits on commas that are not inside parentheses. */
function splitTop(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of s) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      out.push(cur);
      cur = '';
    } else cur += ch;
  }
  out.push(cur);
  return out.map((x) => x.trim());
}

function parseRequirement(term: string, selector: string): Requirement {
  const set = /^(\S+)\s+(in|notin)\s*\(([^)]*)\)$/.exec(term);
  if (set) {
    const values = set[3]!.split(',').map((v) => checkValue(v.trim(), selector));
    return { op: set[2] as 'in' | 'notin', key: checkKey(set[1]!, selector), values };
  }
  const cmp = /^([^!=<>\s]+)\s*(==|=|!=|>|<)\s*(\S*)$/.exec(term);
  if (cmp) {
    const key = checkKey(cmp[1]!, selector);
    const raw = cmp[3]!;
    switch (cmp[2]) {
      case '>':
      case '<': {
        const n = Number(raw);
        if (!/^-?\d+$/.test(raw))
          throw errors.badRequest(
            `unable to parse requirement: for 'Gt', 'Lt' operators, the value must be an integer`,
          );
        return { op: cmp[2] === '>' ? 'gt' : 'lt', key, value: n };
      }
      case '!=':
        return { op: 'notin', key, values: [checkValue(raw, selector)] };
      case undefined:
      default:
        return { op: 'in', key, values: [checkValue(raw, selector)] };
    }
  }
  if (term.startsWith('!')) return { op: '!exists', key: checkKey(term.slice(1).trim(), selector) };
  return { op: 'exists', key: checkKey(term, selector) };
}

/** Parses a label selector in the full syntax (=, ==, !=, in, notin, exists, !key, >, <); 400 on error. */
export function parseLabelSelector(selector: string | undefined): LabelSelector {
  if (!selector || !selector.trim()) return [];
  return splitTop(selector)
    .filter((t) => t !== '')
    .map((t) => parseRequirement(t, selector));
}

/** True when the labels satisfy every requirement. */
export function matchLabels(
  sel: LabelSelector,
  labels: Record<string, string> | undefined,
): boolean {
  const l = labels ?? {};
  return sel.every((r) => {
    const has = Object.prototype.hasOwnProperty.call(l, r.key);
    const v = l[r.key];
    switch (r.op) {
      case 'in':
        return has && r.values.includes(v!);
      case 'notin':
        return !has || !r.values.includes(v!);
      case 'exists':
        return has;
      case '!exists':
        return !has;
      case 'gt':
        return has && /^-?\d+$/.test(v!) && Number(v) > r.value;
      case 'lt':
        return has && /^-?\d+$/.test(v!) && Number(v) < r.value;
    }
  });
}

/** A structured label selector (matchLabels + matchExpressions) as objects carry it. */
export interface StructuredSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
}

/** Converts a metav1.LabelSelector to requirements (an empty selector matches everything). */
export function fromStructured(s: StructuredSelector | undefined): LabelSelector {
  if (!s) return [];
  const reqs: Requirement[] = Object.entries(s.matchLabels ?? {}).map(([key, v]) => ({
    op: 'in',
    key,
    values: [v],
  }));
  for (const e of s.matchExpressions ?? []) {
    switch (e.operator) {
      case 'In':
        reqs.push({ op: 'in', key: e.key, values: e.values ?? [] });
        break;
      case 'NotIn':
        reqs.push({ op: 'notin', key: e.key, values: e.values ?? [] });
        break;
      case 'Exists':
        reqs.push({ op: 'exists', key: e.key });
        break;
      case 'DoesNotExist':
        reqs.push({ op: '!exists', key: e.key });
        break;
      default:
        throw errors.badRequest(`"${e.operator}" is not a valid label selector operator`);
    }
  }
  return reqs;
}

interface FieldRequirement {
  readonly key: string;
  readonly value: string;
  readonly equal: boolean;
}

/** A parsed field selector bound to the getters of one resource type. */
export type FieldSelector = readonly (FieldRequirement & {
  get: (o: KubeObject) => string | undefined;
})[];

const common: Record<string, (o: KubeObject) => string | undefined> = {
  'metadata.name': (o) => o.metadata.name,
  'metadata.namespace': (o) => o.metadata.namespace,
};

/**
 * Parses a field selector for a resource type; a field the type does not support is the real
 * server's 400 "field label not supported".
 */
export function parseFieldSelector(
  selector: string | undefined,
  type: ResourceType,
): FieldSelector {
  if (!selector || !selector.trim()) return [];
  return selector.split(',').map((term) => {
    const m = /^\s*([^!=\s]+)\s*(==|=|!=)\s*(.*?)\s*$/.exec(term);
    if (!m) throw errors.badRequest(`invalid selector: '${selector}'; can't understand '${term}'`);
    const key = m[1]!;
    const get = common[key] ?? type.fieldSelectors[key];
    if (!get) {
      throw errors.badRequest(`field label not supported: ${key}`);
    }
    return { key, value: m[3]!, equal: m[2] !== '!=', get };
  });
}

/** True when the object satisfies every field requirement (a missing field reads as ""). */
export function matchFields(sel: FieldSelector, obj: KubeObject): boolean {
  return sel.every((r) => ((r.get(obj) ?? '') === r.value) === r.equal);
}
