import { createHash } from 'node:crypto';
import type { V1LabelSelector } from '@kubernetes/client-node';

export type Labels = Readonly<Record<string, string>>;

/** True when `labels` carry every key/value of a Service-style selector (a non-empty map). */
export function matchesMap(selector: Labels, labels: Labels | undefined): boolean {
  return Object.entries(selector).every(([k, v]) => labels?.[k] === v);
}

/** True when `labels` satisfy a full LabelSelector (matchLabels and matchExpressions). */
export function matchesSelector(
  selector: V1LabelSelector | undefined,
  labels: Labels | undefined,
): boolean {
  if (selector === undefined) return false;
  if (!matchesMap(selector.matchLabels ?? {}, labels)) return false;
  return (selector.matchExpressions ?? []).every((e) => {
    const value = labels?.[e.key];
    const values = e.values ?? [];
    switch (e.operator) {
      case 'In':
        return value !== undefined && values.includes(value);
      case 'NotIn':
        return value === undefined || !values.includes(value);
      case 'Exists':
        return value !== undefined;
      case 'DoesNotExist':
        return value === undefined;
      default:
        return false;
    }
  });
}

/** A short, stable hash of a JSON-able value (the pod-template-hash of a ReplicaSet). */
export function shortHash(value: unknown, length = 10): string {
  const digest = createHash('sha256').update(stableJson(value)).digest();
  // Kubernetes' "safe" alphabet: no vowels, no look-alike digits, so hashes never spell words.
  const alphabet = 'bcdfghjklmnpqrstvwxz2456789';
  let out = '';
  for (let i = 0; out.length < length; i++)
    out += alphabet[(digest[i % digest.length] ?? 0) % alphabet.length];
  return out;
}

/** JSON with object keys sorted, so equal values hash equally. */
export function stableJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1)),
        )
      : v,
  );
}

/** A random suffix for generated names, from the same safe alphabet (5 letters like Kubernetes). */
export function randomSuffix(length = 5): string {
  const alphabet = 'bcdfghjklmnpqrstvwxz2456789';
  let out = '';
  for (let i = 0; i < length; i++) out += alphabet[Math.floor(Math.random() * alphabet.length)];
  return out;
}
