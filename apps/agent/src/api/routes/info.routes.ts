import {
  cpus,
  freemem,
  hostname,
  release,
  totalmem,
  type as osType,
  uptime,
  version as osVersion,
} from 'node:os';
import type { AgentContext } from '../../agent-context.js';
import { json, type Router } from '../http.js';

/** `show info` field → `process_info_item` property (integers unless listed as strings). */
const INFO_FIELDS: Readonly<Record<string, string>> = {
  Pid: 'pid',
  Uptime_sec: 'uptime',
  Version: 'version',
  Release_date: 'release_date',
  Nbthread: 'nbthread',
  Nbproc: 'processes',
  Process_num: 'process_num',
  'Ulimit-n': 'ulimit_n',
  Maxsock: 'max_sock',
  Maxconn: 'max_conn',
  Hard_maxconn: 'hard_max_conn',
  CurrConns: 'curr_conns',
  CumConns: 'cum_conns',
  CumReq: 'cum_req',
  MaxSslConns: 'max_ssl_conns',
  CurrSslConns: 'curr_ssl_conns',
  CumSslConns: 'cum_ssl_conns',
  Maxpipes: 'max_pipes',
  PipesUsed: 'pipes_used',
  PipesFree: 'pipes_free',
  ConnRate: 'conn_rate',
  ConnRateLimit: 'conn_rate_limit',
  MaxConnRate: 'max_conn_rate',
  SessRate: 'sess_rate',
  SessRateLimit: 'sess_rate_limit',
  MaxSessRate: 'max_sess_rate',
  SslRate: 'ssl_rate',
  SslRateLimit: 'ssl_rate_limit',
  MaxSslRate: 'max_ssl_rate',
  SslFrontendKeyRate: 'ssl_frontend_key_rate',
  SslFrontendMaxKeyRate: 'ssl_frontend_max_key_rate',
  SslFrontendSessionReuse_pct: 'ssl_frontend_session_reuse',
  SslBackendKeyRate: 'ssl_backend_key_rate',
  SslBackendMaxKeyRate: 'ssl_backend_max_key_rate',
  SslCacheLookups: 'ssl_cache_lookups',
  SslCacheMisses: 'ssl_cache_misses',
  CompressBpsIn: 'compress_bps_in',
  CompressBpsOut: 'compress_bps_out',
  CompressBpsRateLim: 'compress_bps_rate_lim',
  ZlibMemUsage: 'zlib_mem_usage',
  MaxZlibMemUsage: 'max_zlib_mem_usage',
  Tasks: 'tasks',
  Run_queue: 'run_queue',
  Idle_pct: 'idle_pct',
  node: 'node',
  Stopping: 'stopping',
  Jobs: 'jobs',
  Unstoppable: 'unstoppable',
  Listeners: 'listeners',
  ActivePeers: 'active_peers',
  ConnectedPeers: 'connected_peers',
  DroppedLogs: 'dropped_logs',
  BusyPolling: 'busy_polling',
  FailedResolutions: 'failed_resolutions',
  TotalBytesOut: 'total_bytes_out',
  BytesOutRate: 'bytes_out_rate',
  Memmax_MB: 'mem_max_mb',
  PoolAlloc_MB: 'pool_alloc_mb',
  PoolUsed_MB: 'pool_used_mb',
  PoolFailed: 'pool_failed',
};
const STRING_FIELDS = new Set(['version', 'node', 'release_date']);

/** Maps `show info` text to the `process_info_item` schema. */
export function processInfo(showInfo: string): Record<string, string | number> {
  const out: Record<string, string | number> = {};
  for (const line of showInfo.split('\n')) {
    const i = line.indexOf(':');
    if (i < 0) continue;
    const key = INFO_FIELDS[line.slice(0, i).trim()];
    const value = line.slice(i + 1).trim();
    if (!key) continue;
    if (key === 'release_date') out[key] = value.replace(/\//g, '-');
    else if (STRING_FIELDS.has(key)) out[key] = value;
    else if (/^-?\d+$/.test(value)) out[key] = Number(value);
  }
  return out;
}

/** `/health`, `/info`, `runtime/info`. */
export function infoRoutes(router: Router, ctx: AgentContext): void {
  router.add('GET', '/v3/health', async () =>
    json(200, { haproxy: (await ctx.haproxy.isUp()) ? 'up' : 'down' }),
  );
  router.add('GET', '/v3/info', () => {
    const cpu = cpus();
    return Promise.resolve(
      json(200, {
        api: {
          version: `v${ctx.apiVersion}.0 haptic-agent ${ctx.agentVersion}`,
          build_date: ctx.startedAt.toISOString(),
        },
        system: {
          hostname: hostname(),
          os_string: `${osType()} ${release()} ${osVersion()}`,
          cpu_info: { model: cpu[0]?.model ?? 'unknown', num_cpus: cpu.length },
          mem_info: {
            total_memory: totalmem(),
            free_memory: freemem(),
            dataplaneapi_memory: process.memoryUsage().rss,
          },
          time: Date.now(),
          uptime: Math.floor(uptime()),
        },
      }),
    );
  });
  router.add('GET', '/v3/services/haproxy/runtime/info', async () => {
    const reply = await ctx.haproxyLock.run(() => ctx.haproxy.admin.send('show info'));
    return json(200, { info: processInfo(reply), runtimeAPI: ctx.paths.adminSocket });
  });
}
