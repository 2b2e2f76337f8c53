import type { V1Container } from '@kubernetes/client-node';

/**
 * What a container becomes on this machine:
 * - `run`: the haptic controller (`haptic run ...`);
 * - `agent`: the Dataplane API sidecar, played by `haptic agent` (which starts HAProxy itself);
 * - `haproxy`: an HAProxy container; played by the pod's agent when that agent starts HAProxy
 *   itself (no process of its own, its probes still run against the pod address); HAProxy itself
 *   when its command runs `haproxy` (beside an agent attached with `--master-socket`, or alone);
 *   otherwise by `haptic agent`;
 * - `echo`: an echo backend (`haptic echo`).
 */
export type Runner = 'run' | 'agent' | 'haproxy' | 'echo';

/** One row of the image table. */
export interface ImageRule {
  /** Repository glob without registry host or tag: `*` matches inside a path segment, `**` any segments. */
  readonly image: string;
  /** When set, the container's command (its first word's base name) must be this. */
  readonly command?: string;
  readonly runner: Runner;
  /** For `echo`: a `haptic echo --profile` to apply (upstream image defaults). */
  readonly profile?: string;
}

/**
 * The default table, first match wins. Images are matched without their registry host and tag,
 * so `registry.k8s.io/gateway-api/conformance/echo-basic:v1.3.0` matches
 * `gateway-api/conformance/echo-basic`.
 */
export const DEFAULT_IMAGE_TABLE: readonly ImageRule[] = [
  // haptic's own images (controller; agent sidecar; echo backend).
  { image: '**/haptic-agent', runner: 'agent' },
  { image: 'haptic-agent', runner: 'agent' },
  { image: '**/haptic-echo', runner: 'echo' },
  { image: 'haptic-echo', runner: 'echo' },
  { image: '**/haptic', runner: 'run' },
  { image: 'haptic', runner: 'run' },
  { image: '**/haptic-controller', runner: 'run' },
  // The Dataplane API sidecar: its own image, or the HAProxy image started as `dataplaneapi`.
  { image: '**/dataplaneapi', runner: 'agent' },
  { image: 'haproxytech/haproxy-*', command: 'dataplaneapi', runner: 'agent' },
  { image: 'haproxytech/haproxy-*', runner: 'haproxy' },
  { image: 'haproxytech/haproxy', runner: 'haproxy' },
  { image: 'haproxy', runner: 'haproxy' },
  // haptic's HAProxy image (Dockerfile.haproxy): `<registry>/haproxy-haptic/haproxy`.
  { image: 'haproxy-haptic/haproxy', runner: 'haproxy' },
  // Echo backends of the Gateway API and Ingress conformance suites.
  { image: 'gateway-api/conformance/echo-basic', runner: 'echo', profile: 'echo-basic' },
  { image: '**/echo-basic', runner: 'echo', profile: 'echo-basic' },
  { image: '**/ingressconformance/echoserver', runner: 'echo' },
  { image: '**/echoserver', runner: 'echo' },
  // httpbun, the second test server of ingress-nginx's e2e suite (its /status, /cookies, /info...).
  { image: '**/httpbun', runner: 'echo', profile: 'httpbun' },
];

/** The repository of an image reference, without registry host, `library/`, tag or digest. */
export function imageRepository(image: string): string {
  let ref = image.split('@')[0] ?? image;
  const lastSlash = ref.lastIndexOf('/');
  const colon = ref.lastIndexOf(':');
  if (colon > lastSlash) ref = ref.slice(0, colon);
  const parts = ref.split('/');
  const first = parts[0] ?? '';
  if (parts.length > 1 && (first.includes('.') || first.includes(':') || first === 'localhost'))
    parts.shift();
  if (parts[0] === 'library' && parts.length > 1) parts.shift();
  return parts.join('/');
}

function globToRegExp(glob: string): RegExp {
  const body = glob
    .split('/')
    .map((seg) =>
      seg === '**'
        ? '(?:.+/)?'
        : seg.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replaceAll('*', '[^/]*') + '/',
    )
    .join('')
    .replace(/\/$/, '');
  return new RegExp(`^${body}$`);
}

/** The rule a container matches, or undefined when node-sim cannot run its image. */
export function ruleFor(
  container: Pick<V1Container, 'image' | 'command'>,
  table: readonly ImageRule[],
): ImageRule | undefined {
  const repo = imageRepository(container.image ?? '');
  const command = container.command?.[0]?.split('/').pop();
  return table.find(
    (rule) =>
      globToRegExp(rule.image).test(repo) &&
      (rule.command === undefined || rule.command === command),
  );
}
