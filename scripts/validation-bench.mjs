// Times validation (structural checks + sandboxed `haproxy -c`) of configs with 10, 1,000 and
// 10,000 backends on every HAProxy major present. Needs `npm run build` first.
// Usage: node scripts/validation-bench.mjs [--runs N] [--sizes 10,1000,10000]
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { availableMajors } from '#haproxy-bin';
import { DEFAULT_STORAGE_DIRS, HaproxyChecker, validateOutputs } from '#validation';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const runs = Number(arg('--runs', '3'));
const sizes = arg('--sizes', '10,1000,10000').split(',').map(Number);

/** haproxy.cfg with `n` backends of 2 servers each, routed by a host map of `n` entries. */
function render(n) {
  const head = [
    'global',
    '  log stdout format raw local0',
    'defaults',
    '  mode http',
    '  timeout connect 5s',
    '  timeout client 30s',
    '  timeout server 30s',
    'frontend http',
    '  bind "${POD_IP}:80"',
    '  use_backend %[req.hdr(host),lower,map(/etc/haproxy/maps/hosts.map,be_default)]',
    'backend be_default',
    '  balance roundrobin',
    '  http-request return status 404',
  ];
  const backends = [];
  const map = [];
  for (let i = 0; i < n; i++) {
    backends.push(
      `backend be_ns${i % 50}_svc${i}`,
      '  balance roundrobin',
      '  option httpchk GET /healthz',
      `  server s1 10.${(i >> 8) & 255}.${i & 255}.1:8080 check weight 100`,
      `  server s2 10.${(i >> 8) & 255}.${i & 255}.2:8080 check weight 100`,
    );
    map.push(`host${i}.example.com be_ns${i % 50}_svc${i}`);
  }
  return {
    haproxyConfig: [...head, ...backends, ''].join('\n'),
    maps: { 'hosts.map': map.join('\n') + '\n' },
    files: {},
    sslCertificates: {},
    crtLists: {},
  };
}

/** Peak RSS (KiB) of one `haproxy -c` on `outputs`, via GNU time when it is installed. */
function peakRssKiB(bin, outputs) {
  if (!existsSync('/usr/bin/time')) return undefined;
  const dir = mkdtempSync(join(tmpdir(), 'haptic-bench-'));
  try {
    mkdirSync(join(dir, 'maps'));
    writeFileSync(join(dir, 'maps', 'hosts.map'), outputs.maps['hosts.map']);
    const cfg = outputs.haproxyConfig.replace('/etc/haproxy/maps/', `${dir}/maps/`);
    writeFileSync(join(dir, 'haproxy.cfg'), cfg);
    const r = spawnSync(
      '/usr/bin/time',
      ['-f', '%M', bin, '-c', '-q', '-f', join(dir, 'haproxy.cfg')],
      {
        encoding: 'utf8',
        env: {},
      },
    );
    const last = r.stderr.trim().split('\n').pop();
    return Number(last);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const rows = [];
for (const install of availableMajors()) {
  const checker = new HaproxyChecker(
    { binary: install.bin, timeoutMs: 120_000, env: { POD_IP: '127.0.0.1' } },
    1,
  );
  for (const n of sizes) {
    const outputs = render(n);
    const total = [];
    const check = [];
    for (let r = 0; r < runs; r++) {
      const t0 = performance.now();
      const result = await validateOutputs(outputs, { dirs: DEFAULT_STORAGE_DIRS, checker });
      total.push(performance.now() - t0);
      if (!result.valid)
        throw new Error(`${n} backends rejected: ${JSON.stringify(result.problems)}`);
      check.push(result.haproxy.durationMs ?? NaN);
    }
    rows.push({
      haproxy: install.version.text,
      backends: n,
      cfgKiB: Math.round(outputs.haproxyConfig.length / 1024),
      haproxyCheckMs: Math.round(median(check)),
      validateTotalMs: Math.round(median(total)),
      haproxyPeakRssMiB: Math.round((peakRssKiB(install.bin, outputs) ?? NaN) / 1024),
    });
  }
}
console.table(rows);
console.log(`median of ${runs} runs; machine: ${cpus().length} CPUs`);
