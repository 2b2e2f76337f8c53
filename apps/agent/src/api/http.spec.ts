import { describe, expect, it } from 'vitest';
import { ApiError } from '../agent.errors.js';
import { boolParam, intParam, Router, type ApiRequest } from './http.js';
import { processInfo } from './routes/info.routes.js';

const req = (query: string): ApiRequest => ({
  method: 'GET',
  path: '/',
  query: new URLSearchParams(query),
  params: {},
  headers: {},
  body: Buffer.alloc(0),
});

describe('Router', () => {
  const ok = () => Promise.resolve({ status: 200 });
  const router = new Router()
    .add('GET', '/v3/a/{name}', ok)
    .add('PUT', '/v3/a/{name}', ok)
    .add('GET', '/v3/a/{name}/b', ok);
  it('matches templates and decodes parameters', () => {
    expect(router.resolve('GET', '/v3/a/x%2Fy').params).toEqual({ name: 'x/y' });
    expect(router.resolve('GET', '/v3/a/n/b').params).toEqual({ name: 'n' });
  });
  it("answers the API's 404 and 405", () => {
    expect(() => router.resolve('GET', '/v3/zzz')).toThrow(
      expect.objectContaining({ status: 404 }) as ApiError,
    );
    expect(() => router.resolve('DELETE', '/v3/a/x')).toThrow(
      /method DELETE is not allowed, but \[GET,PUT\] are/,
    );
  });
});

describe('query parameters', () => {
  it('parses booleans and integers like go-swagger', () => {
    expect(boolParam(req('force_reload=true'), 'force_reload')).toBe(true);
    expect(boolParam(req(''), 'force_reload')).toBe(false);
    expect(() => boolParam(req('force_reload=yes'), 'force_reload')).toThrow(ApiError);
    expect(intParam(req('version=3'), 'version')).toBe(3);
    expect(() => intParam(req('version=x'), 'version')).toThrow(/int64/);
  });
});

describe('processInfo', () => {
  it('maps show info to process_info_item', () => {
    expect(
      processInfo(
        'Name: HAProxy\nVersion: 2.6.12\nRelease_date: 2026/10/17\nPid: 42\nUptime_sec: 7\nnode: vm\n',
      ),
    ).toEqual({
      version: '2.6.12',
      release_date: '2026-10-17',
      pid: 42,
      uptime: 7,
      node: 'vm',
    });
  });
});
