import { describe, expect, it } from 'vitest';
import { hashKeyFormat } from './reader-hash.js';

describe('hashKeyFormat (upstream-hash-by)', () => {
  it('maps nginx variables to the fetches giving the same value, with plain text kept', () => {
    expect(hashKeyFormat('$request_uri')).toEqual({ format: '%[pathq]' });
    expect(hashKeyFormat(' $remote_addr ')).toEqual({ format: '%[var(txn.nginx_client)]' });
    expect(hashKeyFormat('$host$http_x_user_id')).toEqual({
      format: '%[var(txn.host)]%[req.hdr(x-user-id)]',
    });
    expect(hashKeyFormat('${cookie_session}:$arg_tenant')).toEqual({
      format: '%[req.cook(session)]:%[url_param(tenant)]',
    });
  });

  it('refuses unknown variables, other characters and text without a variable, saying which', () => {
    expect(hashKeyFormat('$upstream_addr')).toEqual({
      problem: expect.stringMatching(
        /^uses \$upstream_addr, which the library does not map/,
      ) as unknown,
    });
    expect(hashKeyFormat('$host"; x')).toEqual({
      problem: 'has "\\"" where a $variable or plain text was expected',
    });
    expect(hashKeyFormat('$http_')).toMatchObject({
      problem: expect.stringMatching(/\$http_,/) as unknown,
    });
    expect(hashKeyFormat('fixed')).toEqual({ problem: 'names no nginx variable' });
    expect(hashKeyFormat('%[src]')).toMatchObject({
      problem: expect.stringMatching(/"%"/) as unknown,
    });
  });
});
