import { readFileSync, rmSync } from 'node:fs';
import http2 from 'node:http2';
import https from 'node:https';
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import type { V1EndpointSlice, V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GRPC_ECHO_SERVICE, loadGrpcEchoPackage } from '#testbed/echo';
import { makeTestCerts, type TestCerts } from '../../support/test-certs.js';
import { Cluster, until } from './harness.js';

const NS = 'gateway-conformance-infra';
const manifests = fileURLToPath(new URL('./fixtures/conformance-backends.yaml', import.meta.url));

type EchoAnswer = {
  pod: string;
  namespace: string;
  proto: string;
  tls?: { version: string; serverName: string };
};

function h2cGet(ip: string, port: number): Promise<EchoAnswer> {
  return new Promise((resolve, reject) => {
    const session = http2.connect(`http://${ip}:${port}`);
    session.on('error', reject);
    const stream = session.request({ ':path': '/h2c' });
    let body = '';
    stream.setEncoding('utf8').on('data', (c: string) => (body += c));
    stream.on('end', () => {
      session.close();
      resolve(JSON.parse(body) as EchoAnswer);
    });
    stream.on('error', reject);
  });
}

function httpsGet(ip: string, ca: Buffer): Promise<EchoAnswer> {
  return new Promise((resolve, reject) => {
    const req = https.get(
      { host: ip, port: 8443, path: '/', servername: 'echo.example', ca, agent: false },
      (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (c: string) => (body += c));
        res.on('end', () => resolve(JSON.parse(body) as EchoAnswer));
      },
    );
    req.on('error', reject);
  });
}

async function grpcEcho(
  ip: string,
): Promise<{ assertions: { context: { pod: string; namespace: string } } }> {
  let node: unknown = await loadGrpcEchoPackage();
  for (const part of GRPC_ECHO_SERVICE.split('.')) node = (node as Record<string, unknown>)[part];
  type Client = grpc.Client & {
    Echo: (req: object, cb: (e: grpc.ServiceError | null, r?: never) => void) => void;
  };
  const Ctor = node as new (target: string, creds: grpc.ChannelCredentials) => Client;
  const client = new Ctor(`${ip}:3000`, grpc.credentials.createInsecure());
  return new Promise((resolve, reject) =>
    client.Echo({}, (err, res) => {
      client.close();
      if (err) reject(err);
      else resolve(res!);
    }),
  );
}

describe('conformance backends run unchanged', () => {
  let cluster: Cluster;
  let certs: TestCerts;
  const slice = async (svc: string): Promise<V1EndpointSlice | undefined> =>
    (
      await cluster.discovery.listNamespacedEndpointSlice({
        namespace: NS,
        labelSelector: `kubernetes.io/service-name=${svc}`,
      })
    ).items[0];
  const readyIps = async (svc: string, n: number): Promise<string[]> =>
    until(`${n} ready endpoints of ${svc}`, async () => {
      const ips = ((await slice(svc))?.endpoints ?? [])
        .filter((e) => e.conditions?.ready)
        .map((e) => e.addresses[0]!);
      return ips.length === n && ips;
    });

  beforeAll(async () => {
    certs = makeTestCerts();
    cluster = await Cluster.start();
    await cluster.kubeSim.applyFile(manifests);
    await cluster.core.createNamespacedSecret({
      namespace: NS,
      body: {
        metadata: { name: 'tls-checks-certificate' },
        type: 'kubernetes.io/tls',
        data: {
          'tls.crt': readFileSync(certs.certFile).toString('base64'),
          'tls.key': readFileSync(certs.keyFile).toString('base64'),
        },
      },
    });
  });
  afterAll(async () => {
    await cluster?.stop();
    if (certs) rmSync(certs.dir, { recursive: true, force: true });
  });

  it('serves HTTP on 3000 and h2c on 3001 with the Service ports resolved in the slice', async () => {
    const ips = await readyIps('infra-backend-v1', 2);
    expect((await slice('infra-backend-v1'))!.ports).toEqual([
      { name: 'first-port', port: 3000, protocol: 'TCP' },
      { name: 'second-port', port: 3001, protocol: 'TCP', appProtocol: 'kubernetes.io/h2c' },
    ]);
    for (const ip of ips) {
      // No readiness probe: as on a cluster, the pod is ready once started, maybe before it listens.
      const plain = await until(
        'http answer',
        async () => (await (await fetch(`http://${ip}:3000/`)).json()) as EchoAnswer,
      );
      expect(plain).toMatchObject({ namespace: NS, proto: 'HTTP/1.1' });
      expect(plain.pod).toMatch(/^infra-backend-v1-/);
      expect(await until('h2c', () => h2cGet(ip, 3001))).toMatchObject({
        pod: plain.pod,
        proto: 'HTTP/2.0',
      });
    }
  });

  it('serves TLS from the certificate mounted from a Secret and named by environment paths', async () => {
    const [ip] = await readyIps('tls-backend', 1);
    const answer = await until('https answer', () => httpsGet(ip!, certs.ca));
    expect(answer.pod).toMatch(/^tls-backend-/);
    expect(answer.tls).toMatchObject({ serverName: 'echo.example' });
    expect(answer.tls?.version).toMatch(/^TLSv1\.[23]$/);
  });

  it('serves the gRPC echo service when GRPC_ECHO_SERVER is set', async () => {
    const ips = await readyIps('grpc-infra-backend-v1', 2);
    for (const ip of ips) {
      const res = await until('gRPC answer', () => grpcEcho(ip));
      expect(res.assertions.context.namespace).toBe(NS);
      expect(res.assertions.context.pod).toMatch(/^grpc-infra-backend-v1-/);
    }
  });

  it('reports an image it cannot run on the container, not silently', async () => {
    const pod = await until('coredns pod status', async () => {
      const p: V1Pod | undefined = (
        await cluster.core.listNamespacedPod({ namespace: NS, labelSelector: 'app=udp' })
      ).items[0];
      return p?.status?.containerStatuses?.[0]?.state?.waiting !== undefined && p;
    });
    expect(pod.status!.containerStatuses![0]!.state!.waiting).toMatchObject({
      reason: 'ErrImagePull',
    });
    expect(pod.status!.containerStatuses![0]!.state!.waiting!.message).toContain('coredns/coredns');
  });

  it('stops everything it started', async () => {
    expect(await cluster.stopNodeSim()).toBe(0);
    expect(cluster.leftovers()).toEqual([]);
  });
});
