import { ANNOTATION_GROUPS, NGINX_ANNOTATIONS, NGINX_PREFIX, type NginxAnnotation } from '#render';
import { cell } from './schema-reference.js';

/** The status cell: the status and what qualifies it (deviation, reason, plan, refused values). */
function statusCell(a: NginxAnnotation): string {
  const parts: string[] = [a.status];
  if (a.status === 'deviation' && a.deviation) parts.push(`(${a.deviation})`);
  if (a.status === 'refused' && a.reason) parts.push(`(${a.reason})`);
  if (a.planned) parts.push(`(planned: ${a.planned}, not refused)`);
  for (const v of a.refusedValues ?? [])
    parts.push(`— value \`${v.value.source}\` refused: ${v.reason}`);
  return cell(parts.join(' '));
}

function groupTable(rows: readonly NginxAnnotation[]): string[] {
  return [
    '| annotation | ingress-nginx | haptic (HAProxy) | status |',
    '| ---------- | ------------- | ---------------- | ------ |',
    ...rows.map(
      (a) => `| \`${a.name}\` | ${cell(a.meaning)} | ${cell(a.haproxy)} | ${statusCell(a)} |`,
    ),
  ];
}

/** docs/ingress-nginx.md: every catalogued annotation, generated from the catalogue. */
export function ingressNginxReference(generated: string): string {
  const count = (s: string): number => NGINX_ANNOTATIONS.filter((a) => a.status === s).length;
  return [
    '# ingress-nginx annotations',
    '',
    generated,
    '',
    `Every \`${NGINX_PREFIX}*\` annotation haptic knows, from the one catalogue in`,
    '`libs/render/src/lib/ingress-nginx/` that `haptic migrate --from ingress-nginx` and the',
    'ingress-nginx library also read: what it means in ingress-nginx (its user guide and e2e',
    "annotation tests are the specification), haptic's HAProxy mapping (the intended one while not",
    'yet honoured) and its status:',
    '',
    "- `honoured`: implemented in the ingress-nginx library and tested by the library's validation",
    '  tests and requests through HAProxy;',
    '- `deviation`: honoured with the documented difference;',
    '- `refused`: never honoured, with the reason (an Ingress carrying it is told so);',
    '- `not-yet-honoured`: not built yet, and not refused: an Ingress carrying it is served',
    '  without it and told so.',
    '',
    `Today: ${count('honoured')} honoured, ${count('deviation')} with a deviation, ${count('refused')} refused, ${count('not-yet-honoured')} not yet honoured.`,
    '',
    'Check Ingresses before switching: `haptic migrate --from ingress-nginx -f dump.yaml` (a',
    '`kubectl get ingress -A -o yaml` dump) or `--kubeconfig FILE -A`. It exits 0 when every',
    'annotation is honoured, 3 when some are honoured with a deviation, 4 when any is refused, not',
    'yet honoured or unknown (1 and 2 keep their meaning: failure, bad input).',
    '',
    '## The ingress-nginx library',
    '',
    'Select it in the chart with `controller.config.library: ingress-nginx`: the IngressClass',
    'defaults to `nginx` with the controller name `k8s.io/ingress-nginx` (so an IngressClass that',
    'ingress-nginx left behind, and the Ingresses naming it, are served unchanged; set',
    '`ingressClass.create: false` while that IngressClass still exists). Its settings go in',
    '`controller.config.extraContext`: `ssl_redirect` (true), `hsts`, `hsts_max_age`,',
    '`hsts_include_subdomains`, `proxy_body_size` (`1m`), `use_forwarded_headers` (false),',
    "`enable_ssl_passthrough` (false: ingress-nginx's `--enable-ssl-passthrough`, without which",
    '`ssl-passthrough` is reported and has no effect; `npm run demo -- --library ingress-nginx`',
    "and the conformance suite turn it on, as ingress-nginx's e2e tests turn the flag on; the TLS",
    'port only changes once an Ingress asks for it), `default_backend_service` (`namespace/name`,',
    "ingress-nginx's --default-backend-service: requests no Ingress matches, and custom-http-errors",
    "where an Ingress names no default-backend), `custom_http_errors` (ingress-nginx's ConfigMap",
    'setting, for every Ingress without the annotation), `allow_snippet_annotations` (false; true is',
    'refused), `global_allowed_response_headers` (`[]`: the header names a custom-headers',
    'ConfigMap may set). See',
    '`helm/haptic/libraries/ingress-nginx/README.md`.',
    '',
    "A value outside an annotation's grammar, a snippet annotation or a refused value refuses the",
    'Ingress with a reason naming it and the annotation (quarantined: an Event, its status,',
    '`/debug/quarantine`; the webhook denies it). An Ingress carrying an annotation that is not',
    'honoured yet, or unknown, is served without it: the controller logs a warning and writes a',
    '`Warning AnnotationNotHonoured` Event on the Ingress naming the annotation (once when it',
    'appears, not on every render; `kubectl describe ingress` shows it), and `/debug/notices`',
    'lists it.',
    '',
    ...ANNOTATION_GROUPS.flatMap((g) => [
      `## ${g}`,
      '',
      ...groupTable(NGINX_ANNOTATIONS.filter((a) => a.group === g)),
      '',
    ]),
  ].join('\n');
}
