#!/usr/bin/env node
// Measures the same generated configuration on every HAProxy major present (2.6 from Debian,
// 3.0 from scripts/haproxy3.sh): `haproxy -c` wall time and peak memory, and the time of one
// master-worker reload through the master socket (median of several runs each).
//
//   node scripts/bench-haproxy-majors.mjs [--backends 1000] [--runs 7] [-o json]
//
// Needs `npm run build` first (it takes the binaries from dist's #haproxy-bin). Loopback only.
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { clearTimeout, setTimeout } from 'node:timers';

const { values } = parseArgs({
  options: {
    backends: { type: 'string', default: '1000' },
    runs: { type: 'string', default: '7' },
    output: { type: 'string', short: 'o', default: 'text' },
  },
});
const BACKENDS = Number(values.backends);
const RUNS = Number(values.runs);

const { availableMajors } = await import('#haproxy-bin');

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
};
const sleep = (ms) => delay(ms);

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer().once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function cli(socketPath, command, timeoutMs = 60_000) {
  return new Promise((resolve, reject) => {
    const socket = connect(socketPath);
    let out = '';
    const timer = setTimeout(() => socket.destroy(new Error(`timeout: ${command}`)), timeoutMs);
    socket.on('connect', () => socket.end(`${command}\n`));
    socket.on('data', (d) => (out += d));
    socket.on('error', (e) => (clearTimeout(timer), reject(e)));
    socket.on('close', () => (clearTimeout(timer), resolve(out)));
  });
}

function currentWorkers(showProc) {
  const block = showProc.split('# workers')[1]?.split('#')[0] ?? '';
  return block
    .split('\n')
    .map((l) => /^(\d+)\s+worker/.exec(l)?.[1])
    .filter(Boolean);
}

/** The config of dataplane-notes §4: map-routed HTTP frontend, a TLS frontend, N backends x 2 servers. */
function generate(dir, n, ports) {
  const certPath = join(dir, 'site.pem');
  const mapPath = join(dir, 'hosts.map');
  writeFileSync(
    mapPath,
    Array.from({ length: n }, (_, i) => `host${i}.example.com be_${i}\n`).join(''),
  );
  const lines = [
    'global',
    '  master-worker',
    `  stats socket ${join(dir, 'admin.sock')} mode 600 level admin`,
    '  nbthread 2',
    '  maxconn 4096',
    'defaults',
    '  mode http',
    '  timeout connect 2s',
    '  timeout client 30s',
    '  timeout server 30s',
    'frontend fe_http',
    `  bind 127.0.0.1:${ports.http}`,
    '  http-request set-var(txn.host) req.hdr(host),field(1,:)',
    `  use_backend %[var(txn.host),map(${mapPath},be_default)]`,
    'frontend fe_https',
    `  bind 127.0.0.1:${ports.https} ssl crt ${certPath}`,
    `  use_backend %[req.hdr(host),field(1,:),map(${mapPath},be_default)]`,
    'backend be_default',
    '  balance roundrobin',
    '  http-request return status 404',
  ];
  for (let i = 0; i < n; i++) {
    lines.push(`backend be_${i}`, '  balance roundrobin');
    lines.push(`  server s1 127.0.0.1:${ports.up1}`, `  server s2 127.0.0.1:${ports.up2}`);
  }
  const cfg = join(dir, 'haproxy.cfg');
  writeFileSync(cfg, `${lines.join('\n')}\n`);
  return { cfg, certPath, lines: lines.length };
}

function makeCert(path) {
  return new Promise((resolve, reject) => {
    execFile(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        `${path}.key`,
        '-out',
        `${path}.crt`,
        '-days',
        '2',
        '-subj',
        '/CN=site.example.com',
      ],
      (err) => {
        if (err) return reject(err);
        writeFileSync(
          path,
          readFileSync(`${path}.crt`, 'utf8') + readFileSync(`${path}.key`, 'utf8'),
        );
        resolve();
      },
    );
  });
}

/** `haproxy -c` wall time (ms) and, through GNU time when installed, peak RSS (MB). */
function checkOnce(bin, cfg) {
  const gnuTime = existsSync('/usr/bin/time');
  const [cmd, args] = gnuTime
    ? ['/usr/bin/time', ['-f', '%M', bin, '-c', '-q', '-f', cfg]]
    : [bin, ['-c', '-q', '-f', cfg]];
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    execFile(cmd, args, (err, _stdout, stderr) => {
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      if (err) return reject(new Error(`haproxy -c failed: ${stderr}`));
      const kb = gnuTime ? Number(stderr.trim().split('\n').pop()) : NaN;
      resolve({ ms, rssMb: kb / 1024 });
    });
  });
}

async function waitForNewWorker(master, oldPid) {
  for (let i = 0; i < 6000; i++) {
    try {
      const workers = currentWorkers(await cli(master, 'show proc'));
      if (workers.length > 0 && !workers.includes(oldPid)) return workers[0];
    } catch {
      // the 2.6 master re-executes itself: its socket is briefly gone
    }
    await sleep(5);
  }
  throw new Error('no new worker after 30 s');
}

/** One reload: send -> reply (3.0 answers after the new worker is up) and send -> new worker listed. */
async function reloadOnce(master) {
  const oldPid = currentWorkers(await cli(master, 'show proc'))[0];
  const start = process.hrtime.bigint();
  const reply = await cli(master, 'reload');
  const replyMs = Number(process.hrtime.bigint() - start) / 1e6;
  const pid = await waitForNewWorker(master, oldPid);
  const workerMs = Number(process.hrtime.bigint() - start) / 1e6;
  if (reply !== '' && !reply.startsWith('Success=1')) throw new Error(`reload failed: ${reply}`);
  return { replyMs, workerMs, pid, reply: reply.split('\n')[0] || '(empty)' };
}

async function benchMajor(install, dir, gen) {
  const checks = [];
  for (let i = 0; i < RUNS; i++) checks.push(await checkOnce(install.bin, gen.cfg));
  const master = join(dir, `master-${install.branch}.sock`);
  const child = spawn(install.bin, ['-W', '-S', `${master},mode,600`, '-f', gen.cfg], {
    cwd: dir,
    stdio: 'ignore',
  });
  try {
    await waitForNewWorker(master, undefined);
    const reloads = [];
    for (let i = 0; i < RUNS; i++) {
      reloads.push(await reloadOnce(master));
      await sleep(200); // let the old worker leave before the next one
    }
    const pid = reloads.at(-1).pid;
    const rss = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return {
      major: install.branch,
      version: install.version.text,
      checkMedianMs: median(checks.map((c) => c.ms)),
      checkMs: checks.map((c) => Math.round(c.ms)),
      checkPeakRssMb: median(checks.map((c) => c.rssMb)),
      reloadReply: reloads[0].reply,
      reloadReplyMedianMs: median(reloads.map((r) => r.replyMs)),
      reloadNewWorkerMedianMs: median(reloads.map((r) => r.workerMs)),
      reloadNewWorkerMs: reloads.map((r) => Math.round(r.workerMs)),
      workerRssMb: rss ? Number(rss) / 1024 : undefined,
    };
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => (child.exitCode !== null ? r() : child.once('exit', r)));
  }
}

const installs = availableMajors();
if (installs.length === 0) {
  console.error('no HAProxy found: install haproxy and/or run bash scripts/haproxy3.sh');
  process.exit(1);
}
const dir = mkdtempSync(join(tmpdir(), 'haptic-bench-majors-'));
try {
  const ports = {
    http: await freePort(),
    https: await freePort(),
    up1: await freePort(),
    up2: await freePort(),
  };
  await makeCert(join(dir, 'site.pem'));
  const gen = generate(dir, BACKENDS, ports);
  const results = [];
  for (const install of installs) results.push(await benchMajor(install, dir, gen));
  if (values.output === 'json') {
    console.log(
      JSON.stringify({ backends: BACKENDS, lines: gen.lines, runs: RUNS, results }, null, 2),
    );
  } else {
    console.log(
      `${BACKENDS} backends x 2 servers, ${gen.lines} lines, ${RUNS} runs each (medians)`,
    );
    for (const r of results) {
      console.log(
        `haproxy ${r.version}: -c ${r.checkMedianMs.toFixed(0)} ms (peak ${r.checkPeakRssMb.toFixed(0)} MB)` +
          ` | reload: reply ${r.reloadReplyMedianMs.toFixed(0)} ms [${r.reloadReply}],` +
          ` new worker listed ${r.reloadNewWorkerMedianMs.toFixed(0)} ms | worker RSS ${r.workerRssMb?.toFixed(0)} MB`,
      );
      console.log(
        `  runs: -c ${r.checkMs.join(', ')} ms; reload -> new worker ${r.reloadNewWorkerMs.join(', ')} ms`,
      );
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
