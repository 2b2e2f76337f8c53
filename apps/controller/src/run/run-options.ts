import { hostname } from 'node:os';
import { parseSecretRef, type SecretRef } from './self-signed-certificate.js';

/** How `haptic run` is configured: flags first, then HAPTIC_* environment variables, then defaults. */
export interface RunOptions {
  /** kubeconfig file; in-cluster service account when unset. */
  readonly kubeconfig?: string;
  /** Namespace of the HAProxyTemplateConfig (and of this controller's own objects). */
  readonly namespace: string;
  /** Name of the HAProxyTemplateConfig to run. */
  readonly configName: string;
  /** Address the HTTP listeners bind (default all interfaces; tests use 127.0.0.1). */
  readonly address: string;
  readonly healthPort: number;
  readonly metricsPort: number;
  readonly logLevel: 'debug' | 'info' | 'warn' | 'error';
  /** True when the level came from a flag or the environment: it then overrides spec.logging.level. */
  readonly logLevelFixed: boolean;
  /** Identity in leader election and in the Dataplane request log (the pod name in a cluster). */
  readonly identity: string;
  /** HAProxy binary for validation. */
  readonly haproxyBin?: string;
  /** HTTPS port of the admission webhook. */
  readonly webhookPort: number;
  /** Folder holding the webhook's tls.crt and tls.key; the webhook is off without it. */
  readonly webhookCertDir?: string;
  /** The Secret holding the self-signed default certificate this controller keeps (when set). */
  readonly selfSignedCertificate?: SecretRef;
}

type Raw = Partial<Record<Exclude<keyof RunOptions, 'logLevelFixed'>, string | undefined>>;

const LEVELS = ['debug', 'info', 'warn', 'error'] as const;

function port(name: string, value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new RangeError(`${name} must be a port number from 0 to 65535, not ${value}`);
  return n;
}

/** Resolves run options from flags and an environment; throws RangeError naming the bad setting. */
export function resolveRunOptions(flags: Raw, env: NodeJS.ProcessEnv = process.env): RunOptions {
  const pick = (key: keyof Raw, envName: string): string | undefined => flags[key] ?? env[envName];
  const fixedLevel = pick('logLevel', 'HAPTIC_LOG_LEVEL') ?? env['LOG_LEVEL'];
  const level = fixedLevel ?? 'info';
  if (!(LEVELS as readonly string[]).includes(level))
    throw new RangeError(`--log-level must be one of ${LEVELS.join(', ')}, not ${level}`);
  const kubeconfig = pick('kubeconfig', 'KUBECONFIG');
  const haproxyBin = pick('haproxyBin', 'HAPTIC_HAPROXY_BIN');
  const webhookCertDir = pick('webhookCertDir', 'HAPTIC_WEBHOOK_CERT_DIR');
  const selfSigned = pick('selfSignedCertificate', 'HAPTIC_SELF_SIGNED_CERTIFICATE');
  return {
    ...(selfSigned ? { selfSignedCertificate: parseSecretRef(selfSigned) } : {}),
    ...(kubeconfig ? { kubeconfig } : {}),
    ...(haproxyBin ? { haproxyBin } : {}),
    ...(webhookCertDir ? { webhookCertDir } : {}),
    webhookPort: port('--webhook-port', pick('webhookPort', 'HAPTIC_WEBHOOK_PORT') ?? '9443'),
    namespace: pick('namespace', 'HAPTIC_NAMESPACE') ?? env['POD_NAMESPACE'] ?? 'default',
    configName: pick('configName', 'HAPTIC_CONFIG_NAME') ?? 'haptic',
    address: pick('address', 'HAPTIC_ADDRESS') ?? '0.0.0.0',
    healthPort: port('--health-port', pick('healthPort', 'HAPTIC_HEALTH_PORT') ?? '8080'),
    metricsPort: port('--metrics-port', pick('metricsPort', 'HAPTIC_METRICS_PORT') ?? '9090'),
    logLevel: level as RunOptions['logLevel'],
    logLevelFixed: fixedLevel !== undefined,
    // the pod name in a cluster; elsewhere host and pid, so two local replicas never share one
    identity:
      pick('identity', 'HAPTIC_IDENTITY') ?? env['POD_NAME'] ?? `${hostname()}_${process.pid}`,
  };
}
