import type { ConfigWatchStatus, WatchStatus } from '#watch';

/** What /readyz is waiting for, in the words an operator needs. */
export interface ReadinessInputs {
  readonly config: ConfigWatchStatus | undefined;
  /** The last rejection of the followed config while none has been accepted yet. */
  readonly rejected: string | undefined;
  readonly accepted: boolean;
  readonly watches: readonly WatchStatus[];
}

function configReason(c: ConfigWatchStatus): string | undefined {
  const what = `HAProxyTemplateConfig ${c.ref.namespace}/${c.ref.name}`;
  const why = c.message || c.lastError;
  switch (c.phase) {
    case 'backoff':
      return `API server ${c.server} does not answer or fails (${why}); retrying with backoff`;
    case 'unauthorized':
      return `API server ${c.server} refused the credentials (401) listing ${what}`;
    case 'forbidden':
      return `API server ${c.server} forbids listing ${what} (403): grant list/watch on haproxytemplateconfigs`;
    case 'not-found':
      return `API server ${c.server} has no HAProxyTemplateConfig CRD (haproxytemplateconfigs.haproxy-haptic.org/v1alpha1): install it`;
    case 'invalid':
      return `API server ${c.server} refused the list of ${what} (400): ${why}`;
    case 'listing':
      if (c.found === undefined) return `listing ${what} on ${c.server}`;
      break;
    case 'watching':
    case 'stopped':
      break;
  }
  return c.found === false ? `${what} does not exist on ${c.server}` : undefined;
}

/** Every reason the controller is not ready yet (empty once it is only waiting on nothing). */
export function readinessReasons(i: ReadinessInputs): string[] {
  const reasons: string[] = [];
  const config = i.config && configReason(i.config);
  if (config) reasons.push(config);
  if (i.config?.found && !i.accepted)
    reasons.push(
      i.rejected
        ? `waiting for a valid HAProxyTemplateConfig: ${i.rejected}`
        : 'waiting for the HAProxyTemplateConfig to be parsed',
    );
  for (const w of i.watches)
    if (w.phase !== 'watching')
      reasons.push(
        `watched resource ${w.resource}: ${w.phase}${w.message ? ` (${w.message})` : ''}`,
      );
  return reasons;
}
