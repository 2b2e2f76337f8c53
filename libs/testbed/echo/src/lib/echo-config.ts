import { EchoConfigError } from './echo.errors.js';

/** Where the echo server runs, reported in every answer (upstream echo-basic's `Context`). */
export interface EchoContext {
  readonly namespace: string;
  readonly ingress: string;
  readonly service: string;
  readonly pod: string;
}

/** Certificate files for the HTTPS (or gRPC TLS) listener. */
export interface EchoTlsFiles {
  readonly certFile: string;
  readonly keyFile: string;
  /** When set, client certificates are requested and, if sent, verified against these CAs. */
  readonly clientCaFile?: string;
}

/** Everything an echo server needs, resolved once from flags and environment. */
export interface EchoConfig {
  readonly mode: 'http' | 'grpc';
  readonly address: string;
  /** Plain HTTP (or plaintext gRPC) port; 0 picks a free port. */
  readonly httpPort: number;
  /** HTTP/2 cleartext (prior knowledge) port; absent means no h2c listener. */
  readonly h2cPort?: number;
  /** HTTPS (or gRPC over TLS) port, used only when `tls` is set. */
  readonly httpsPort: number;
  readonly tls?: EchoTlsFiles;
  readonly context: EchoContext;
  /** `httpbun`: httpbun's routes (`/status/N`, `/cookies/set`, `/info`, ...) answer before the echo. */
  readonly profile?: 'httpbun';
}

/** Command-line flags; each wins over the environment variable that means the same. */
export interface EchoOptions {
  readonly address?: string;
  readonly port?: string;
  readonly grpc?: boolean;
  readonly h2cPort?: string;
  readonly httpsPort?: string;
  /**
   * `echo-basic` applies the upstream image's defaults (h2c on 3001); `httpbun` serves httpbun's
   * routes too, on HTTPBUN_BIND's port (else HTTP_PORT, else 80, as the image).
   */
  readonly profile?: string;
}

export type Env = Readonly<Record<string, string | undefined>>;

/** Upstream echo-basic's default ports. */
export const DEFAULT_HTTP_PORT = 3000;
export const DEFAULT_H2C_PORT = 3001;
export const DEFAULT_HTTPS_PORT = 8443;
/** The httpbun image's port. */
export const HTTPBUN_DEFAULT_PORT = 80;

const PROFILES = ['echo-basic', 'httpbun'];

/** The port of httpbun's HTTPBUN_BIND (`:80`, `0.0.0.0:8080`), or undefined when unset. */
function httpbunBindPort(env: Env): string | undefined {
  const bind = firstSet(env['HTTPBUN_BIND']);
  return bind === undefined ? undefined : bind.slice(bind.lastIndexOf(':') + 1);
}

function parsePort(value: string, what: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isInteger(n) || n < 0 || n > 65535) {
    throw new EchoConfigError(
      `${what} must be a port number (0-65535), got ${JSON.stringify(value)}`,
    );
  }
  return n;
}

function firstSet(...values: (string | undefined)[]): string | undefined {
  return values.find((v) => v !== undefined && v !== '');
}

function resolveTls(mode: 'http' | 'grpc', env: Env): EchoTlsFiles | undefined {
  const certFile = firstSet(env['TLS_SERVER_CERT']);
  // The upstream HTTP server reads TLS_SERVER_PRIVKEY, its gRPC server TLS_SERVER_PRIV_KEY.
  const keyFile =
    mode === 'grpc'
      ? firstSet(env['TLS_SERVER_PRIV_KEY'], env['TLS_SERVER_PRIVKEY'])
      : firstSet(env['TLS_SERVER_PRIVKEY'], env['TLS_SERVER_PRIV_KEY']);
  if (certFile === undefined && keyFile === undefined) return undefined;
  if (certFile === undefined || keyFile === undefined) {
    throw new EchoConfigError('TLS needs both TLS_SERVER_CERT and TLS_SERVER_PRIVKEY');
  }
  const clientCaFile = firstSet(env['TLS_CLIENT_CACERTS']);
  return clientCaFile === undefined ? { certFile, keyFile } : { certFile, keyFile, clientCaFile };
}

/**
 * Resolves flags and environment the way the upstream conformance image reads them (HTTP_PORT,
 * H2C_PORT, HTTPS_PORT, TLS_*, GRPC_ECHO_SERVER, NAMESPACE, INGRESS_NAME, SERVICE_NAME, POD_NAME),
 * plus haptic's own: POD_NAMESPACE as a namespace fallback and POD_IP as the bind address.
 */
export function resolveEchoConfig(options: EchoOptions, env: Env): EchoConfig {
  const mode =
    options.grpc === true || firstSet(env['GRPC_ECHO_SERVER']) !== undefined ? 'grpc' : 'http';
  const address = firstSet(options.address, env['POD_IP']) ?? '127.0.0.1';
  if (options.profile !== undefined && !PROFILES.includes(options.profile)) {
    throw new EchoConfigError(
      `unknown profile ${JSON.stringify(options.profile)} (known: ${PROFILES.join(', ')})`,
    );
  }
  const httpbun = options.profile === 'httpbun';
  const httpPort = parsePort(
    (httpbun
      ? firstSet(options.port, httpbunBindPort(env), env['HTTP_PORT'])
      : firstSet(options.port, env['HTTP_PORT'])) ??
      String(httpbun ? HTTPBUN_DEFAULT_PORT : DEFAULT_HTTP_PORT),
    'port',
  );
  const httpsPort = parsePort(
    firstSet(options.httpsPort, env['HTTPS_PORT']) ?? String(DEFAULT_HTTPS_PORT),
    'https port',
  );
  const upstreamProfile = options.profile === 'echo-basic';
  const h2cRaw =
    firstSet(options.h2cPort, env['H2C_PORT']) ??
    (upstreamProfile ? String(DEFAULT_H2C_PORT) : undefined);
  const tls = resolveTls(mode, env);
  const context: EchoContext = {
    namespace: firstSet(env['NAMESPACE'], env['POD_NAMESPACE']) ?? '',
    ingress: env['INGRESS_NAME'] ?? '',
    service: env['SERVICE_NAME'] ?? '',
    pod: env['POD_NAME'] ?? '',
  };
  return {
    mode,
    address,
    httpPort,
    httpsPort,
    context,
    ...(h2cRaw === undefined || mode === 'grpc' ? {} : { h2cPort: parsePort(h2cRaw, 'h2c port') }),
    ...(tls === undefined ? {} : { tls }),
    ...(httpbun ? { profile: 'httpbun' as const } : {}),
  };
}
