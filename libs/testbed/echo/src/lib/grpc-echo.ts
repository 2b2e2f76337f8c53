import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import type { EchoConfig, EchoContext } from './echo-config.js';
import { EchoStartError } from './echo.errors.js';
import { peerChainPem, type EchoListener, type RunningEcho } from './http-echo.js';

import { GRPC_ECHO_SERVICE } from './grpc-service.js';

export { GRPC_ECHO_SERVICE };

/** Finds the shipped grpcecho.proto from both the source tree and the compiled dist/ tree. */
export function grpcEchoProtoPath(): string {
  const candidates = [
    '../../proto/grpcecho.proto',
    '../../../../../../libs/testbed/echo/proto/grpcecho.proto',
  ];
  for (const rel of candidates) {
    const path = fileURLToPath(new URL(rel, import.meta.url));
    if (existsSync(path)) return path;
  }
  throw new EchoStartError('grpcecho.proto not found beside the echo library');
}

/** Loads the echo service definition (also used by tests and clients to call it). */
export function loadGrpcEchoPackage(): grpc.GrpcObject {
  const definition = protoLoader.loadSync(grpcEchoProtoPath(), { keepCase: false, defaults: true });
  return grpc.loadPackageDefinition(definition);
}

function serviceDefinition(): grpc.ServiceDefinition {
  let node: unknown = loadGrpcEchoPackage();
  for (const part of GRPC_ECHO_SERVICE.split('.')) node = (node as Record<string, unknown>)[part];
  return (node as { service: grpc.ServiceDefinition }).service;
}

type EchoCall = grpc.ServerUnaryCall<object, object>;

function headersOf(call: EchoCall): { key: string; value: string }[] {
  const out = [{ key: ':authority', value: call.getHost() }];
  for (const [key, values] of Object.entries(call.metadata.toJSON())) {
    for (const value of values) {
      out.push({ key, value: Buffer.isBuffer(value) ? value.toString('base64') : value });
    }
  }
  return out;
}

/** The assertions answer for one call: method, metadata, authority, pod context, TLS peer. */
export function echoAssertions(
  method: string,
  call: EchoCall,
  context: EchoContext,
  tls: boolean,
): object {
  const auth = tls ? call.getAuthContext() : undefined;
  return {
    assertions: {
      fullyQualifiedMethod: `/${GRPC_ECHO_SERVICE}/${method}`,
      headers: headersOf(call),
      authority: call.getHost(),
      context: {
        namespace: context.namespace,
        ingress: context.ingress,
        serviceName: context.service,
        pod: context.pod,
      },
      // grpc-js exposes only the peer certificate of a TLS call, not the version or cipher.
      ...(auth === undefined
        ? {}
        : { tlsAssertions: { peerCertificates: peerChainPem(auth.sslPeerCertificate) } }),
    },
    request: {},
  };
}

function implementation(context: EchoContext, tls: boolean): grpc.UntypedServiceImplementation {
  const handler =
    (method: string): grpc.handleUnaryCall<object, object> =>
    (call, callback) =>
      callback(null, echoAssertions(method, call, context, tls));
  // EchoThree is left out on purpose: grpc-js answers UNIMPLEMENTED, as the upstream server does.
  return { Echo: handler('Echo'), EchoTwo: handler('EchoTwo') };
}

function bind(server: grpc.Server, target: string, creds: grpc.ServerCredentials): Promise<number> {
  return new Promise((resolve, reject) => {
    server.bindAsync(target, creds, (err, port) =>
      err === null
        ? resolve(port)
        : reject(new EchoStartError(`cannot listen on ${target}: ${err.message}`, { cause: err })),
    );
  });
}

async function startOne(
  config: EchoConfig,
  tls: boolean,
  port: number,
  creds: grpc.ServerCredentials,
): Promise<{ server: grpc.Server; listener: EchoListener }> {
  const server = new grpc.Server();
  server.addService(serviceDefinition(), implementation(config.context, tls));
  const host = config.address.includes(':') ? `[${config.address}]` : config.address;
  const bound = await bind(server, `${host}:${port}`, creds);
  return {
    server,
    listener: { kind: tls ? 'grpc-tls' : 'grpc', address: config.address, port: bound },
  };
}

/** Starts the gRPC echo service in plaintext, and over TLS when certificate files are configured. */
export async function startGrpcEcho(config: EchoConfig): Promise<RunningEcho> {
  const started = [
    await startOne(config, false, config.httpPort, grpc.ServerCredentials.createInsecure()),
  ];
  if (config.tls !== undefined) {
    const [cert, key] = await Promise.all([
      readFile(config.tls.certFile),
      readFile(config.tls.keyFile),
    ]);
    const creds = grpc.ServerCredentials.createSsl(
      null,
      [{ cert_chain: cert, private_key: key }],
      false,
    );
    started.push(await startOne(config, true, config.httpsPort, creds));
  }
  return {
    listeners: started.map((s) => s.listener),
    close: async () => {
      for (const { server } of started) server.forceShutdown();
      await Promise.resolve();
    },
  };
}
