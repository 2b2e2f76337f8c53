import { describe, expect, it } from 'vitest';
import { Context } from 'liquidjs';
import { accessLines, limitLines } from './backend.js';
import { NginxReader, NginxRefusal, defaultNginxSettings } from './reader.js';

const P = 'nginx.ingress.kubernetes.io/';
const settingsOf = (annotations: Record<string, string>) => {
  const ing = {
    metadata: {
      namespace: 'apps',
      name: 'lim',
      annotations: Object.fromEntries(Object.entries(annotations).map(([k, v]) => [P + k, v])),
    },
    spec: { rules: [] },
  };
  const s = defaultNginxSettings({});
  new NginxReader(ing, {}).read(s);
  return s;
};

describe('limitLines', () => {
  it('limit-rpm counts requests per minute (gpc0_rate) with the burst multiplier', () => {
    const lines = limitLines(settingsOf({ 'limit-rpm': '4', 'limit-burst-multiplier': '2' }));
    expect(lines).toEqual([
      'stick-table type ipv6 size 100k expire 120s store http_req_rate(1s),gpc0_rate(60s),conn_cur',
      'http-request track-sc0 var(txn.nginx_client)',
      'http-request sc-inc-gpc0(0)',
      'http-request deny deny_status 503 if { sc0_gpc0_rate gt 8 }',
    ]);
  });

  it('limit-rps and limit-rpm apply together; limit-whitelist exempts both', () => {
    const lines = limitLines(
      settingsOf({ 'limit-rps': '3', 'limit-rpm': '100', 'limit-whitelist': '10.0.0.0/8' }),
    );
    const unless = '!{ var(txn.nginx_client) -m ip 10.0.0.0/8 }';
    expect(lines).toContain(
      `http-request deny deny_status 503 if { sc_http_req_rate(0) gt 15 } ${unless}`,
    );
    expect(lines).toContain(
      `http-request deny deny_status 503 if { sc0_gpc0_rate gt 500 } ${unless}`,
    );
    expect(lines[1]).toBe(`http-request track-sc0 var(txn.nginx_client) if ${unless}`);
  });

  it('no limit annotation, no table; a bad limit-rpm is refused naming it', () => {
    expect(limitLines(settingsOf({}))).toEqual([]);
    expect(() => settingsOf({ 'limit-rpm': '0' })).toThrow(NginxRefusal);
    expect(() => settingsOf({ 'limit-rpm': '1m' })).toThrow(
      'Ingress apps/lim: annotation nginx.ingress.kubernetes.io/limit-rpm: "1m" is not a whole number',
    );
  });
});

describe('accessLines (satisfy)', () => {
  const ctx = new Context({});
  const basic = { realm: 'R', users: [{ name: 'u', hash: '$5$s$h' }], denied: undefined };
  const lines = (a: Record<string, string>, auth: typeof basic | null = basic) =>
    accessLines(ctx, settingsOf(a), { be: 'ing_x', auth: auth ?? undefined });

  it('all (the default): the ranges deny 403, then credentials are asked', () => {
    expect(lines({ 'whitelist-source-range': '10.0.0.0/8' })).toEqual([
      'http-request deny deny_status 403 unless { var(txn.nginx_client) -m ip 10.0.0.0/8 }',
      'http-request auth realm "R" unless { http_auth(auth_ing_x) }',
    ]);
    expect(lines({ 'whitelist-source-range': '10.0.0.0/8', satisfy: 'all' })).toEqual(
      lines({ 'whitelist-source-range': '10.0.0.0/8' }),
    );
  });

  it('any: a client the ranges allow skips the credentials, no 403', () => {
    expect(
      lines({
        'whitelist-source-range': '10.0.0.0/8',
        'denylist-source-range': '10.1.0.0/16',
        satisfy: 'any',
      }),
    ).toEqual([
      'http-request set-var(txn.nginx_access) bool(true) if { var(txn.nginx_client) -m ip 10.0.0.0/8 } !{ var(txn.nginx_client) -m ip 10.1.0.0/16 }',
      'http-request auth realm "R" if !{ http_auth(auth_ing_x) } !{ var(txn.nginx_access) -m bool }',
    ]);
  });

  it('any without basic auth, or without ranges, changes nothing; another value is refused', () => {
    const ranges = { 'whitelist-source-range': '10.0.0.0/8' };
    expect(lines({ ...ranges, satisfy: 'any' }, null)).toEqual(lines(ranges, null));
    expect(lines({ satisfy: 'any' })).toEqual(lines({}));
    expect(() => settingsOf({ satisfy: 'either' })).toThrow(
      'Ingress apps/lim: annotation nginx.ingress.kubernetes.io/satisfy: "either" is not any or all',
    );
  });
});
