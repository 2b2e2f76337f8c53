import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { certificateExpiries, outputBytes } from './output-facts.js';

describe('output facts', () => {
  it('counts bytes per output kind', () => {
    expect(
      outputBytes({
        haproxyConfig: 'global\n',
        maps: { 'a.map': 'x y\n', 'b.map': 'é\n' },
        files: {},
        sslCertificates: {},
        crtLists: { 'l.txt': 'abc' },
      }),
    ).toEqual({ 'haproxy.cfg': 7, maps: 7, files: 0, certificates: 0, 'crt-lists': 3 });
  });

  it('reads the expiry of the first certificate of each output, skipping what does not parse', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cert-'));
    try {
      execFileSync(
        'openssl',
        [
          'req',
          '-x509',
          '-newkey',
          'rsa:2048',
          '-nodes',
          '-days',
          '3',
          '-subj',
          '/CN=web.example.com',
          '-keyout',
          join(dir, 'k.pem'),
          '-out',
          join(dir, 'c.pem'),
        ],
        { stdio: 'ignore' },
      );
      const pem =
        readFileSync(join(dir, 'k.pem'), 'utf8') + readFileSync(join(dir, 'c.pem'), 'utf8');
      const expiries = certificateExpiries({ 'web.pem': pem, 'broken.pem': 'nothing here' });
      expect([...expiries.keys()]).toEqual(['web.pem']);
      const days = (expiries.get('web.pem')! - Date.now() / 1000) / 86_400;
      expect(days).toBeGreaterThan(2.9);
      expect(days).toBeLessThan(3.1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
