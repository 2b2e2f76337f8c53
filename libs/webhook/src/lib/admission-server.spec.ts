import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:https';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PeerCertificate, TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { generateCertificate } from '#testbed/kube-sim';
import { MalformedReviewError } from './admission-review.js';
import { startAdmissionServer, type AdmissionServer } from './admission-server.js';
import { followKeyPair, readKeyPair, type KeyPair } from './certificate-files.js';

interface Answer {
  status: number;
  body: string;
  cert: PeerCertificate;
}

function post(
  port: number,
  ca: string,
  body: string,
  opts: { path?: string; type?: string; method?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: opts.path ?? '/validate',
        method: opts.method ?? 'POST',
        ca,
        agent: false,
        headers: { 'content-type': opts.type ?? 'application/json' },
      },
      (res) => {
        const cert = (res.socket as TLSSocket).getPeerCertificate();
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text, cert }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('admission server', () => {
  let dir: string;
  let first: KeyPair;
  let second: KeyPair;
  let server: AdmissionServer;
  const seen: unknown[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'webhook-tls-'));
    first = await generateCertificate({ commonName: 'first', ipAddresses: ['127.0.0.1'] });
    second = await generateCertificate({ commonName: 'second', ipAddresses: ['127.0.0.1'] });
    await writeFile(join(dir, 'tls.crt'), first.cert);
    await writeFile(join(dir, 'tls.key'), first.key);
    const pair = await readKeyPair({
      certFile: join(dir, 'tls.crt'),
      keyFile: join(dir, 'tls.key'),
    });
    server = await startAdmissionServer(
      { address: '127.0.0.1', port: 0, pair, maxBodyBytes: 1000 },
      (body) => {
        seen.push(body);
        if ((body as { bad?: boolean }).bad) throw new MalformedReviewError('request: missing');
        if ((body as { bug?: boolean }).bug) throw new TypeError('oops');
        return Promise.resolve({ echoed: body });
      },
    );
  });
  afterAll(async () => {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('answers JSON over TLS verified with the CA', async () => {
    const a = await post(server.port, first.cert, '{"x":1}');
    expect(a).toMatchObject({ status: 200, body: '{"echoed":{"x":1}}' });
  });

  it('refuses plain HTTP: no review is read and no answer is given without TLS', async () => {
    const before = seen.length;
    const reply = await new Promise<string>((resolve) => {
      const socket = connect(server.port, '127.0.0.1', () =>
        socket.write(
          'POST /validate HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n' +
            'content-length: 7\r\nconnection: close\r\n\r\n{"x":1}',
        ),
      );
      let got = '';
      socket.on('data', (c: Buffer) => (got += c.toString('latin1')));
      socket.on('close', () => resolve(got));
      socket.on('error', () => undefined);
      socket.setTimeout(5000, () => socket.destroy());
    });
    expect(reply).not.toMatch(/^HTTP\/1\.[01] 2/);
    expect(reply).not.toContain('echoed');
    expect(seen.length).toBe(before);
  });

  it('answers 400 for a malformed review, 500 for a bug, 413/415/405/404 for the rest', async () => {
    expect((await post(server.port, first.cert, '{"bad":true}')).status).toBe(400);
    expect((await post(server.port, first.cert, '{"bug":true}')).status).toBe(500);
    expect((await post(server.port, first.cert, 'not json')).status).toBe(400);
    expect((await post(server.port, first.cert, `{"x":"${'a'.repeat(2000)}"}`)).status).toBe(413);
    expect((await post(server.port, first.cert, '{}', { type: 'text/plain' })).status).toBe(415);
    expect((await post(server.port, first.cert, '', { method: 'GET' })).status).toBe(405);
    expect((await post(server.port, first.cert, '{}', { path: '/other' })).status).toBe(404);
  });

  it('serves a rotated certificate once the files change, keeping the old one while they are unreadable', async () => {
    const errors: string[] = [];
    const src = { certFile: join(dir, 'tls.crt'), keyFile: join(dir, 'tls.key') };
    let rotated: () => void = () => undefined;
    const changed = new Promise<void>((r) => (rotated = r));
    const stop = followKeyPair(
      src,
      first,
      20,
      (pair) => {
        server.setKeyPair(pair);
        rotated();
      },
      (e) => errors.push(e.message),
    );
    try {
      await writeFile(src.certFile, 'garbage');
      // polled until the follower reported the unreadable file (its poll is 20 ms), not slept on
      await vi.waitFor(
        () => expect(errors[0]).toMatch(/webhook certificate .*tls\.crt: no PEM certificate in it/),
        { timeout: 10_000, interval: 10 },
      );
      expect((await post(server.port, first.cert, '{}')).cert.subject.CN).toBe('first');
      await writeFile(src.keyFile, second.key);
      await writeFile(src.certFile, second.cert);
      await changed;
      expect((await post(server.port, second.cert, '{}')).cert.subject.CN).toBe('second');
    } finally {
      stop();
    }
  });
});
