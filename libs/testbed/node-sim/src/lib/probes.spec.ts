import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runProbe, type ProbeTarget } from './probes.js';

describe('probes', () => {
  let server: http.Server;
  let target: ProbeTarget;
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      res.statusCode = req.url === '/ok' ? 200 : 503;
      res.end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    target = {
      podIP: '127.0.0.1',
      ports: [{ name: 'http', containerPort: port }],
      env: {},
      cwd: '/',
      mapPath: (p) => p,
    };
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('httpGet passes on 2xx/3xx by named port and fails otherwise', async () => {
    expect(await runProbe({ httpGet: { path: '/ok', port: 'http' } }, target)).toBe(true);
    expect(await runProbe({ httpGet: { path: '/bad', port: 'http' } }, target)).toBe(false);
    expect(await runProbe({ httpGet: { path: '/ok', port: 'nope' } }, target)).toBe(false);
  });

  it('tcpSocket passes when something listens', async () => {
    const port = target.ports[0]!.containerPort;
    expect(await runProbe({ tcpSocket: { port: port } }, target)).toBe(true);
    expect(await runProbe({ tcpSocket: { port: 1 } }, target)).toBe(false);
  });

  it('exec passes on exit 0', async () => {
    expect(await runProbe({ exec: { command: ['true'] } }, target)).toBe(true);
    expect(await runProbe({ exec: { command: ['false'] } }, target)).toBe(false);
  });
});
