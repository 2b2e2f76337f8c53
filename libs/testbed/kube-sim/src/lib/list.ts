import type { Scope } from './api-types.js';
import { served } from './api-shape.js';
import { groupVersion } from './resource-type.js';
import { matchFields, matchLabels, parseFieldSelector, parseLabelSelector } from './selectors.js';
import { errors } from './status.js';
import type { Store } from './store.js';
import type { KubeObject } from './types.js';

/** A list response body. */
export interface ListBody {
  apiVersion: string;
  kind: string;
  metadata: { resourceVersion: string; continue?: string; remainingItemCount?: number };
  items: KubeObject[];
}

interface ContinueToken {
  rv: number;
  start: string;
}

const tooOld =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.';

function decodeToken(raw: string, store: Store): ContinueToken {
  let t: ContinueToken;
  try {
    t = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as ContinueToken;
  } catch {
    throw errors.badRequest('continue key is not valid: illegal base64 data');
  }
  if (typeof t.rv !== 'number' || typeof t.start !== 'string')
    throw errors.badRequest('continue key is not valid');
  if (t.rv < store.compactedResourceVersion) throw errors.expired(tooOld);
  return t;
}

/** Builds a predicate from ?labelSelector= and ?fieldSelector= (400 for unsupported fields). */
export function selectorOf(s: Scope): (o: KubeObject) => boolean {
  const labels = parseLabelSelector(s.query.get('labelSelector') ?? undefined);
  const fields = parseFieldSelector(s.query.get('fieldSelector') ?? undefined, s.type);
  if (labels.length === 0 && fields.length === 0) return () => true;
  return (o) => matchLabels(labels, o.metadata.labels) && matchFields(fields, o);
}

/**
 * LIST with selectors and limit/continue. Continuation pages read the current state after the
 * last returned key (a real server reads an etcd snapshot at the first page's resourceVersion).
 */
export function list(store: Store, s: Scope): ListBody {
  const t = s.type;
  const match = selectorOf(s);
  const rvMatch = s.query.get('resourceVersionMatch');
  const askedRv = s.query.get('resourceVersion');
  if (rvMatch === 'Exact' && askedRv !== String(store.resourceVersion)) {
    throw errors.expired(
      `kube-sim keeps no snapshots: resourceVersionMatch=Exact is only served for the current resourceVersion (${store.resourceVersion})`,
    );
  }
  const token = s.query.get('continue') ? decodeToken(s.query.get('continue')!, store) : undefined;
  const rv = token?.rv ?? store.resourceVersion;
  let items = store.list(t.storageKey, s.namespace);
  if (token)
    items = items.filter((o) => `${o.metadata.namespace ?? ''}/${o.metadata.name!}` > token.start);
  items = items.filter(match);
  const limit = Number(s.query.get('limit') ?? 0);
  const body: ListBody = {
    apiVersion: groupVersion(t),
    kind: t.listKind,
    metadata: { resourceVersion: String(rv) },
    items: [],
  };
  if (limit > 0 && items.length > limit) {
    const last = items[limit - 1]!;
    body.metadata.continue = Buffer.from(
      JSON.stringify({ rv, start: `${last.metadata.namespace ?? ''}/${last.metadata.name!}` }),
    ).toString('base64url');
    body.metadata.remainingItemCount = items.length - limit;
    items = items.slice(0, limit);
  }
  body.items = items.map((o) => served(t, o));
  return body;
}
