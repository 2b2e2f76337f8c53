import { parseTemplateConfig } from '#core';
import type { AdmissionDryRunPort, DryRunVerdict } from '#events';
import type { AdmissionRequest, Review } from './admission-review.js';

/** At most this many problems are listed in one denial (the rest are counted). */
const MAX_LISTED = 5;

function listed(items: readonly string[]): string {
  const shown = items.slice(0, MAX_LISTED).join('; ');
  return items.length > MAX_LISTED ? `${shown}; and ${items.length - MAX_LISTED} more` : shown;
}

/** Runs `work` but gives up waiting after `ms` (undefined then; the work itself goes on). */
async function within<T>(ms: number, work: Promise<T>): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>(
    (resolve) => (timer = setTimeout(() => resolve(undefined), ms)),
  );
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Review of a HAProxyTemplateConfig: schema, compile and render over the current index, one
 * `haproxy -c`, then its embedded validation tests within `testBudgetMs` (tests still running
 * then allow the config with a warning: the webhook must answer well inside its timeout).
 */
export async function reviewConfig(
  dryRun: AdmissionDryRunPort,
  req: AdmissionRequest,
  testBudgetMs: number,
): Promise<Review> {
  const kind = 'config' as const;
  if (req.operation === 'DELETE' || !req.object)
    return { kind, result: 'allowed', verdict: { allowed: true } };
  const meta = (req.object['metadata'] ?? {}) as { namespace?: string; name?: string };
  const what = `HAProxyTemplateConfig ${meta.namespace ?? req.namespace ?? ''}/${meta.name ?? req.name ?? ''}`;
  const deny = (reason: string): Review => ({
    kind,
    result: 'denied',
    verdict: { allowed: false, code: 400, message: `${what}: ${reason}` },
  });
  const parsed = parseTemplateConfig(req.object);
  if (!parsed.ok) return deny(listed(parsed.problems.map((p) => `${p.path}: ${p.reason}`)));
  const config = parsed.config;
  const rendered = await dryRun.render(config, []);
  if (!rendered.ok) return deny(`does not render: ${rendered.reason}`);
  const checked = await dryRun.validate(config, rendered.outputs, true);
  if (!checked.ok) return deny(`its render is not valid: ${checked.reason}`);
  const warnings = rendered.quarantined.map(
    (q) =>
      `${q.watched}/${q.namespace ? `${q.namespace}/` : ''}${q.name} would be left out: ${q.reason}`,
  );
  const tests: DryRunVerdict | undefined = await within(testBudgetMs, dryRun.runTests(config));
  if (tests && !tests.ok) return deny(`validation tests fail: ${tests.reason}`);
  if (!tests)
    warnings.push(
      `validation tests did not finish within ${testBudgetMs} ms; run haptic validate to see them`,
    );
  return {
    kind,
    result: 'allowed',
    verdict: { allowed: true, ...(warnings.length ? { warnings: warnings.slice(0, 20) } : {}) },
  };
}
