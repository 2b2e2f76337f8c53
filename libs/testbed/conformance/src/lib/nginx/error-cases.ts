import { get, host, ingress, type CaseTools, type NginxCase } from './cases.js';

const errorsHost = host('custom-errors');

/**
 * `custom-http-errors` is refused (HAProxy cannot ask the default backend for the error page):
 * the webhook denies it naming the annotation, or the render leaves it unserved.
 */
async function customErrorsRefused(t: CaseTools): Promise<string | undefined> {
  const errs = ingress('custom-errors', errorsHost, [['/', 'httpbun']], {
    'custom-http-errors': '404,503',
  });
  const refused = await t.apply([errs]).then(
    () => undefined,
    (e: unknown) => (e instanceof Error ? e.message : String(e)),
  );
  if (refused !== undefined)
    return /custom-http-errors/.test(refused)
      ? undefined
      : `refused without naming custom-http-errors: ${refused}`;
  // accepted by the API: a later Ingress being served shows the render has seen the refused one
  await t.apply([ingress('custom-errors-after', errorsHost, [['/after', 'echo-b']])]);
  const why = await t.served({ req: get(errorsHost, '/after'), expect: { service: 'echo-b' } });
  if (why) return `a later Ingress on the host: ${why}`;
  return t.check({ req: get(errorsHost, '/status/503'), expect: { status: 404 } });
}

/** Error pages: custom-http-errors. */
export const ERROR_CASES: readonly NginxCase[] = [
  {
    name: 'custom-http-errors: refused (HAProxy cannot pass the request to the default backend)',
    annotations: ['custom-http-errors'],
    objects: [ingress('custom-errors-marker', errorsHost, [['/marker', 'echo-b']])],
    steps: [{ req: get(errorsHost, '/marker'), expect: { status: 200, service: 'echo-b' } }],
    script: customErrorsRefused,
  },
];
