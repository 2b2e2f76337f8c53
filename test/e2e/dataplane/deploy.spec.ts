import { request } from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeForMajors } from '#testbed/testing';
import type { RenderedOutputs } from '#events';
import { DataplaneClient, syncPod } from '#dataplane';
import { freePort, PASSWORD, startTestAgent, USER, type TestAgent } from '../agent/helpers.js';

/** A small configuration routing by a host map, with an error page from general storage. */
function outputs(
  port: number,
  hosts: Record<string, string>,
  withErrorPage = true,
): RenderedOutputs {
  return {
    haproxyConfig: [
      'global',
      '  log stdout format raw local0 err',
      'defaults',
      '  mode http',
      '  timeout connect 1s',
      '  timeout client 5s',
      '  timeout server 5s',
      `frontend web`,
      `  bind 127.0.0.1:${port}`,
      '  http-request return status 200 content-type text/plain lf-string "routed=%[req.hdr(host),field(1,:),lower,map(maps/hosts.map,none)]"',
      ...(withErrorPage ? ['  errorfile 503 general/503.http'] : []),
      '',
    ].join('\n'),
    maps: {
      'hosts.map': Object.entries(hosts)
        .map(([h, b]) => `${h} ${b}\n`)
        .join(''),
    },
    files: withErrorPage
      ? { '503.http': 'HTTP/1.0 503 Service Unavailable\r\nContent-Type: text/plain\r\n\r\nbusy\n' }
      : {},
    sslCertificates: {},
    crtLists: {},
  };
}

describeForMajors(
  ['2.6', '3.0'],
  'syncPod deploys whole configurations against the agent and a real HAProxy',
  () => {
    let t: TestAgent;
    let client: DataplaneClient;
    let port: number;
    // node:http, not fetch: fetch does not let a caller set the Host header.
    const routed = (host: string) =>
      new Promise<string>((resolve, reject) => {
        request({ host: '127.0.0.1', port, path: '/', headers: { host } }, (res) => {
          let body = '';
          res
            .setEncoding('utf8')
            .on('data', (c: string) => (body += c))
            .on('end', () => resolve(body));
        })
          .on('error', reject)
          .end();
      });

    beforeAll(async () => {
      t = await startTestAgent();
      port = await freePort();
      client = new DataplaneClient({
        url: t.agent.url,
        username: USER,
        password: PASSWORD,
        identity: 'haptic-test',
      });
    });
    afterAll(async () => t?.close());

    it('deploys files and configuration, and HAProxy serves them', async () => {
      const r = await syncPod(client, outputs(port, { 'a.example': 'be_a' }));
      expect(r.reloaded).toBe(true);
      expect(r.operations.filter((o) => o.kind === 'storage.create').map((o) => o.target)).toEqual([
        'maps/hosts.map',
        'general/503.http',
      ]);
      expect(await routed('a.example')).toBe('routed=be_a');
      expect(await client.readStorage('general', '503.http')).toContain('busy');
    });

    it('does nothing when the pod already runs the same configuration and files', async () => {
      const before = await client.version();
      const r = await syncPod(client, outputs(port, { 'a.example': 'be_a' }));
      expect(r).toMatchObject({ reloaded: false, operations: [] });
      expect(await client.version()).toBe(before);
    });

    it('deploys a map change, and removes files the new configuration no longer has', async () => {
      const r = await syncPod(
        client,
        outputs(port, { 'a.example': 'be_a', 'b.example': 'be_b' }, false),
      );
      expect(r.operations.filter((o) => o.kind.startsWith('storage.')).map((o) => o.kind)).toEqual([
        'storage.replace',
        'storage.delete',
      ]);
      expect(await routed('b.example')).toBe('routed=be_b');
      expect(await client.readStorage('general', '503.http')).toBeUndefined();
    });

    it('retries after a version conflict with someone else', async () => {
      class Racing extends DataplaneClient {
        raced = false;
        override async pushRaw(text: string, opts: { version: number; forceReload?: boolean }) {
          if (!this.raced) {
            this.raced = true; // someone else commits first: our version is now stale
            const current = await this.getRaw();
            await super.pushRaw(current.text, { version: current.version, skipReload: true });
          }
          return super.pushRaw(text, opts);
        }
      }
      const racing = new Racing(client.endpoint);
      await syncPod(racing, outputs(port, { 'c.example': 'be_c', 'd.example': 'be_d' }, true));
      expect(racing.raced).toBe(true);
      expect(await routed('d.example')).toBe('routed=be_d');
      expect(await routed('c.example')).toBe('routed=be_c');
    });

    it('reports HAProxy refusing a configuration, and the old one keeps serving', async () => {
      const bad = {
        ...outputs(port, { 'c.example': 'be_c' }, false),
        haproxyConfig: 'global\n  no-such-keyword\n',
      };
      await expect(syncPod(client, bad)).rejects.toMatchObject({
        code: 'HAPTIC_DATAPLANE_CONFIG_REJECTED',
      });
      expect(await routed('c.example')).toBe('routed=be_c');
    });
  },
);
