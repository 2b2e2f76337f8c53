import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { validateOutputs, DEFAULT_STORAGE_DIRS, HaproxyChecker } from '#validation';
import { availableMajors } from '#haproxy-bin';
const d = process.argv[2];
const rd = (sub) => { const o = {}; try { for (const f of readdirSync(join(d, sub))) o[f] = readFileSync(join(d, sub, f), 'utf8'); } catch {} return o; };
const outputs = { haproxyConfig: readFileSync(join(d, 'haproxy.cfg'), 'utf8'), maps: rd('maps'), files: rd('files'), sslCertificates: rd('ssl'), crtLists: {} };
for (const [k,v] of Object.entries(outputs.sslCertificates)) if (!v.includes('CERTIFICATE')) { outputs.crtLists[k]=v; delete outputs.sslCertificates[k]; }
const bin = process.env.HAPTIC_HAPROXY_BIN;
const checker = new HaproxyChecker({ binary: bin, timeoutMs: 60000 }, 1);
for (const m of [0, Number(process.argv[3] ?? 0)]) for (let i = 0; i < 3; i++) { const t = performance.now(); const r = await validateOutputs(outputs, { dirs: DEFAULT_STORAGE_DIRS, checker, maxServersPerCheck: m }); console.log(m, (performance.now() - t).toFixed(1), r.valid, r.haproxy.durationMs?.toFixed(0), r.haproxy.runs, r.problems.slice(0,1).map(p=>p.reason)); }
