import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Gauge, Histogram } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createTestBus } from '#testbed/testing';
import { RenderMetrics } from './render.metrics.js';

/** A real self-signed certificate and its key, valid for `days`. */
function certificate(days: number): string {
  const dir = mkdtempSync(join(tmpdir(), 'render-metrics-'));
  try {
    execFileSync(
      'openssl',
      [
        ...['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', String(days)],
        ...[
          '-subj',
          '/CN=a.example.com',
          '-keyout',
          join(dir, 'k.pem'),
          '-out',
          join(dir, 'c.pem'),
        ],
      ],
      { stdio: 'ignore' },
    );
    return readFileSync(join(dir, 'c.pem'), 'utf8') + readFileSync(join(dir, 'k.pem'), 'utf8');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const outputs = (sslCertificates: Record<string, string>) => ({
  haproxyConfig: 'global\n',
  maps: {},
  files: {},
  sslCertificates,
  crtLists: {},
});

describe('RenderMetrics', () => {
  it("sets each rendered certificate's expiry, and drops the series of one no longer rendered", async () => {
    const bus = await createTestBus();
    const expiry = new Gauge({ name: 'e', help: 'e', labelNames: ['certificate'], registers: [] });
    const metrics = new RenderMetrics(
      bus,
      new Histogram({ name: 'd', help: 'd', registers: [] }),
      new Gauge({ name: 'b', help: 'b', labelNames: ['output'], registers: [] }),
      expiry,
    );
    metrics.onModuleInit();
    const [a, b] = [certificate(30), certificate(2)];
    const notAfter = (pem: string) => Date.parse(new X509Certificate(pem).validTo) / 1000;
    bus.setState('render.validated', {
      hash: 'h1',
      outputs: outputs({ 'a.pem': a, 'b.pem': b }),
      configGeneration: 1,
    });
    await bus.idle();
    const values = async (): Promise<Record<string, number>> =>
      Object.fromEntries(
        (await expiry.get()).values.map((v) => [String(v.labels.certificate), v.value]),
      );
    expect(await values()).toEqual({ 'a.pem': notAfter(a), 'b.pem': notAfter(b) });
    bus.setState('render.validated', {
      hash: 'h2',
      outputs: outputs({ 'a.pem': a }),
      configGeneration: 1,
    });
    await bus.idle();
    expect(await values()).toEqual({ 'a.pem': notAfter(a) });
    metrics.onModuleDestroy();
  });
});
