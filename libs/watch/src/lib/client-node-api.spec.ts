import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { ClientNodeKubeApi } from './client-node-api.js';
import type { KubeObject } from './ports.js';

const TYPE = { apiVersion: 'v1', plural: 'configmaps' };

/** A list endpoint serving `total` ConfigMaps `limit` at a time with continue tokens. */
async function pagedServer(
  total: number,
): Promise<{ server: Server; url: string; pages: () => number }> {
  let pages = 0;
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const limit = Number(url.searchParams.get('limit'));
    const from = Number(url.searchParams.get('continue') || 0);
    pages++;
    const items = Array.from({ length: Math.min(limit, total - from) }, (_, k) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: `cm-${from + k}`,
        namespace: 'default',
        managedFields: [{ manager: 'kubectl', operation: 'Apply' }],
      },
    }));
    const next = from + items.length < total ? String(from + items.length) : undefined;
    res.setHeader('content-type', 'application/json');
    res.end(
      JSON.stringify({
        kind: 'ConfigMapList',
        apiVersion: 'v1',
        metadata: { resourceVersion: '42', ...(next ? { continue: next } : {}) },
        items,
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${port}`, pages: () => pages };
}

function configFor(server: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server, skipTLSVerify: true }],
    users: [{ name: 'u' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return kc;
}

describe('ClientNodeKubeApi.list', () => {
  let server: Server | undefined;
  afterEach(
    () => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())),
  );

  it('maps every item as its page arrives, before the next page is requested', async () => {
    const paged = await pagedServer(7);
    server = paged.server;
    const api = new ClientNodeKubeApi(configFor(paged.url), { pageSize: 3 });
    const seenAtPage: Record<string, number> = {};
    const result = await api.list(TYPE, {}, new AbortController().signal, (o: KubeObject) => {
      seenAtPage[o.metadata.name] = paged.pages();
      if (o.metadata.name === 'cm-4') return undefined;
      const { managedFields: _dropped, ...metadata } = o.metadata as KubeObject['metadata'] & {
        managedFields?: unknown;
      };
      return { ...o, metadata };
    });
    expect(paged.pages()).toBe(3);
    // items of page k are mapped while only k pages have been requested
    expect(seenAtPage).toEqual({
      'cm-0': 1,
      'cm-1': 1,
      'cm-2': 1,
      'cm-3': 2,
      'cm-4': 2,
      'cm-5': 2,
      'cm-6': 3,
    });
    expect(result.resourceVersion).toBe('42');
    expect(result.items.map((o) => o.metadata.name)).toEqual([
      'cm-0',
      'cm-1',
      'cm-2',
      'cm-3',
      'cm-5',
      'cm-6',
    ]);
    expect(result.items.every((o) => !('managedFields' in o.metadata))).toBe(true);
  });

  it('keeps every item as it is without a mapper', async () => {
    const paged = await pagedServer(4);
    server = paged.server;
    const api = new ClientNodeKubeApi(configFor(paged.url), { pageSize: 3 });
    const result = await api.list(TYPE, {}, new AbortController().signal);
    expect(result.items).toHaveLength(4);
    expect(result.items[3]?.metadata).toHaveProperty('managedFields');
  });
});
