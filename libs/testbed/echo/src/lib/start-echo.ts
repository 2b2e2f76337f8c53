import type { EchoConfig } from './echo-config.js';
import { startGrpcEcho } from './grpc-lazy.js';
import { startHttpEcho, type RunningEcho } from './http-echo.js';

/** Starts the echo server the configuration describes (HTTP or gRPC). */
export function startEcho(config: EchoConfig): Promise<RunningEcho> {
  return config.mode === 'grpc' ? startGrpcEcho(config) : startHttpEcho(config);
}
