import type { GrpcObject } from '@grpc/grpc-js';
import type { EchoConfig } from './echo-config.js';
import type { RunningEcho } from './http-echo.js';

// gRPC is loaded on use: an HTTP echo backend (most pods) does not pay for grpc-js and protobufjs.

/** Starts the gRPC echo service (see grpc-echo.ts). */
export async function startGrpcEcho(config: EchoConfig): Promise<RunningEcho> {
  return (await import('./grpc-echo.js')).startGrpcEcho(config);
}

/** Loads the echo service definition, for clients that call it. */
export async function loadGrpcEchoPackage(): Promise<GrpcObject> {
  return (await import('./grpc-echo.js')).loadGrpcEchoPackage();
}
