import { rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import { describeForMajors, freePort, startHaproxy, type HaproxyUnderTest } from '#testbed/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { echoBackend, renderLibraryConfig, tempBase } from '../ingress-library/library.js';
import { get, service, startBackend } from './local-backends.js';
import { nginxIngress } from './nginx-ingress.js';

// service-upstream and custom-headers of the ingress-nginx library, judged by real requests through
// a real HAProxy running the library's render (as ingress-nginx's e2e customheaders.go and its
// service-upstream docs describe them). Two backends tell the cluster IP from the endpoints: the
// Service's cluster IP and port reach one, its EndpointSlice names the other.

const NS = 'apps';

const ingress = (name: string, host: string, annotations: object, service = 'echo', port = 8080) =>
  nginxIngress(name, annotations, { namespace: NS, host, service, port });

// what ingress-nginx's e2e test sets, and values HAProxy must not read (a sample fetch, quotes)
const HEADERS = {
  'My-Custom-Header': '42',
  'My-Custom-Header-Dollar': '$remote_addr',
  'X-Fetch': '%[src] %{+Q}o ${HOME}',
  'X-Quotes': `it's "quoted" \\ 'twice'`,
};

describeForMajors(
  ['2.6', '3.0'],
  'ingress-nginx service-upstream and custom-headers through HAProxy',
  (install) => {
    let base: string;
    let endpoints: { port: number; server: Server };
    let cluster: { port: number; server: Server };
    let haproxy: HaproxyUnderTest;
    let http: number;

    beforeAll(async () => {
      process.env['POD_IP'] = '127.0.0.1'; // binds stay on loopback
      base = await tempBase();
      endpoints = await startBackend('endpoints');
      cluster = await startBackend('cluster-ip');
      http = await freePort();
      const extra = {
        http_port: http,
        https_port: await freePort(),
        stats_port: await freePort(),
        global_allowed_response_headers: Object.keys(HEADERS),
      };
      const objects = [
        {
          apiVersion: 'networking.k8s.io/v1',
          kind: 'IngressClass',
          metadata: { name: 'nginx' },
          spec: { controller: 'k8s.io/ingress-nginx' },
        },
        ...echoBackend(NS, endpoints.port),
        // the cluster IP's port reaches the cluster-ip backend, the endpoints the other one
        ...service(NS, 'cip', '127.0.0.1', cluster.port, endpoints.port),
        ...service(NS, 'headless', 'None', cluster.port, endpoints.port),
        ingress('upstream', 'up.bar.com', { 'service-upstream': 'true' }, 'cip', cluster.port),
        ingress('plain', 'plain.bar.com', {}, 'cip', cluster.port),
        ingress(
          'headless',
          'headless.bar.com',
          { 'service-upstream': 'true' },
          'headless',
          cluster.port,
        ),
        {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: 'custom-headers', namespace: NS },
          data: HEADERS,
        },
        ingress('headers', 'headers.bar.com', { 'custom-headers': `${NS}/custom-headers` }),
        ingress('missing', 'missing.bar.com', { 'custom-headers': `${NS}/no-such-configmap` }),
      ];
      const cfg = await renderLibraryConfig(base, 'ingress-nginx', extra, objects);
      haproxy = await startHaproxy({ bin: install.bin, config: () => cfg });
    }, 120_000);

    afterAll(async () => {
      await haproxy?.stop();
      for (const b of [endpoints, cluster]) await new Promise((r) => b?.server.close(r));
      if (base) await rm(base, { recursive: true, force: true });
    });

    it("service-upstream sends every request to the Service's cluster IP and port, not its endpoints", async () => {
      for (let i = 0; i < 4; i++) {
        const r = await get(http, 'up.bar.com');
        expect([r.status, r.headers['x-backend']]).toEqual([200, 'cluster-ip']);
      }
      const plain = await get(http, 'plain.bar.com');
      expect([plain.status, plain.headers['x-backend']]).toEqual([200, 'endpoints']);
    });

    it('service-upstream on a headless Service keeps its endpoints', async () => {
      const r = await get(http, 'headless.bar.com');
      expect([r.status, r.headers['x-backend']]).toEqual([200, 'endpoints']);
    });

    it("custom-headers sets the ConfigMap's headers on the answer, each value literally", async () => {
      const r = await get(http, 'headers.bar.com');
      expect(r.status).toBe(200);
      for (const [name, value] of Object.entries(HEADERS))
        expect(r.headers[name.toLowerCase()], name).toBe(value);
    });

    it('custom-headers naming a missing ConfigMap answers 503, without the headers', async () => {
      const r = await get(http, 'missing.bar.com');
      expect(r.status).toBe(503);
      expect(r.headers['my-custom-header']).toBeUndefined();
    });
  },
);
