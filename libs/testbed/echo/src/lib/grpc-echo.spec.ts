import { rmSync } from 'node:fs';
import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveEchoConfig } from './echo-config.js';
import { GRPC_ECHO_SERVICE, loadGrpcEchoPackage, startGrpcEcho } from './grpc-echo.js';
import type { RunningEcho } from './http-echo.js';
import { makeTestCerts, type TestCerts } from '../../../../../test/support/test-certs.js';

interface Assertions {
  fullyQualifiedMethod: string;
  headers: { key: string; value: string }[];
  authority: string;
  context: Record<string, string>;
  tlsAssertions: unknown;
}
type Unary = (
  req: object,
  md: grpc.Metadata,
  cb: (err: grpc.ServiceError | null, res?: { assertions: Assertions }) => void,
) => void;
type EchoClient = grpc.Client & { Echo: Unary; EchoTwo: Unary; EchoThree: Unary };

function clientFor(
  target: string,
  creds: grpc.ChannelCredentials,
  options: grpc.ClientOptions = {},
): EchoClient {
  let node: unknown = loadGrpcEchoPackage();
  for (const part of GRPC_ECHO_SERVICE.split('.')) node = (node as Record<string, unknown>)[part];
  const Ctor = node as new (
    t: string,
    c: grpc.ChannelCredentials,
    o: grpc.ClientOptions,
  ) => EchoClient;
  return new Ctor(target, creds, options);
}

function call(
  client: EchoClient,
  method: 'Echo' | 'EchoTwo' | 'EchoThree',
  md = new grpc.Metadata(),
) {
  return new Promise<{ assertions: Assertions }>((resolve, reject) => {
    client[method]({}, md, (err, res) => (err ? reject(err) : resolve(res!)));
  });
}

describe('gRPC echo server', () => {
  let echo: RunningEcho;
  let certs: TestCerts;
  const clients: grpc.Client[] = [];

  beforeAll(async () => {
    certs = makeTestCerts();
    const config = resolveEchoConfig(
      { grpc: true, port: '0', httpsPort: '0' },
      {
        POD_NAME: 'grpc-1',
        NAMESPACE: 'ns-g',
        SERVICE_NAME: 'grpc-svc',
        TLS_SERVER_CERT: certs.certFile,
        TLS_SERVER_PRIV_KEY: certs.keyFile,
      },
    );
    echo = await startGrpcEcho(config);
  });
  afterAll(async () => {
    for (const c of clients) c.close();
    await echo?.close();
    if (certs) rmSync(certs.dir, { recursive: true, force: true });
  });

  it('answers Echo and EchoTwo with the method, metadata, authority and context', async () => {
    const port = echo.listeners.find((l) => l.kind === 'grpc')!.port;
    const client = clientFor(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
    clients.push(client);
    const md = new grpc.Metadata();
    md.add('x-grpc-test', 'hello');
    const one = await call(client, 'Echo', md);
    expect(one.assertions.fullyQualifiedMethod).toBe(`/${GRPC_ECHO_SERVICE}/Echo`);
    expect(one.assertions.authority).toBe(`127.0.0.1:${port}`);
    expect(one.assertions.headers).toContainEqual({ key: 'x-grpc-test', value: 'hello' });
    expect(one.assertions.context).toEqual({
      namespace: 'ns-g',
      ingress: '',
      serviceName: 'grpc-svc',
      pod: 'grpc-1',
    });
    expect(one.assertions.tlsAssertions).toBeNull();
    const two = await call(client, 'EchoTwo');
    expect(two.assertions.fullyQualifiedMethod).toBe(`/${GRPC_ECHO_SERVICE}/EchoTwo`);
  });

  it('answers EchoThree with UNIMPLEMENTED', async () => {
    const port = echo.listeners.find((l) => l.kind === 'grpc')!.port;
    const client = clientFor(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
    clients.push(client);
    await expect(call(client, 'EchoThree')).rejects.toMatchObject({
      code: grpc.status.UNIMPLEMENTED,
    });
  });

  it('serves over TLS when certificate files are configured', async () => {
    const port = echo.listeners.find((l) => l.kind === 'grpc-tls')!.port;
    const creds = grpc.credentials.createSsl(certs.ca);
    const client = clientFor(`127.0.0.1:${port}`, creds, {
      'grpc.ssl_target_name_override': 'echo.example',
    });
    clients.push(client);
    const res = await call(client, 'Echo');
    expect(res.assertions.tlsAssertions).not.toBeNull();
    expect(res.assertions.context.pod).toBe('grpc-1');
  });
});
