import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:tls';

/** A throw-away EC certificate and key for `cn`, as separate PEM texts. */
export function makeCertificate(cn: string): { cert: string; key: string } {
  const dir = mkdtempSync(join(tmpdir(), 'haptic-cert-'));
  const [certPath, keyPath] = [join(dir, 'cert.pem'), join(dir, 'key.pem')];
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      keyPath,
      '-out',
      certPath,
      '-days',
      '2',
      '-subj',
      `/CN=${cn}`,
    ],
    { stdio: 'ignore' },
  );
  try {
    return { cert: readFileSync(certPath, 'utf8'), key: readFileSync(keyPath, 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Files a test HAProxy reads: a certificate bundle and a hosts map, in their own folder. */
export function makeSiteFiles(): { dir: string; certPath: string; mapPath: string } {
  const dir = mkdtempSync(join(tmpdir(), 'haptic-site-'));
  const { cert, key } = makeCertificate('one.example.com');
  const certPath = join(dir, 'site.pem');
  const mapPath = join(dir, 'hosts.map');
  writeFileSync(certPath, cert + key);
  writeFileSync(mapPath, 'seed.example.com be_default\n');
  return { dir, certPath, mapPath };
}

/** A minimal master-worker configuration: one TLS frontend routing through the hosts map. */
export function siteConfig(p: {
  adminSocket: string;
  port: number;
  certPath: string;
  mapPath: string;
}): string {
  return [
    'global',
    '  master-worker',
    `  stats socket ${p.adminSocket} mode 600 level admin`,
    'defaults',
    '  mode http',
    '  timeout connect 1s',
    '  timeout client 5s',
    '  timeout server 5s',
    'frontend fe_tls',
    `  bind 127.0.0.1:${p.port} ssl crt ${p.certPath}`,
    `  use_backend %[req.hdr(host),map(${p.mapPath},be_default)]`,
    'backend be_default',
    '  balance roundrobin',
    '  server s1 127.0.0.1:9',
    '',
  ].join('\n');
}

/** The CN of the certificate HAProxy serves on `port` (a real TLS handshake). */
export function servedCommonName(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({
      host: '127.0.0.1',
      port,
      servername: 'one.example.com',
      rejectUnauthorized: false,
    });
    socket.setTimeout(5_000, () => socket.destroy(new Error('TLS handshake timed out')));
    socket.once('secureConnect', () => {
      const cn = socket.getPeerCertificate().subject.CN;
      socket.end();
      resolve(Array.isArray(cn) ? cn.join(',') : String(cn));
    });
    socket.once('error', reject);
  });
}
