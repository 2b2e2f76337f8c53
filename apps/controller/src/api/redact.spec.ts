import { describe, expect, it } from 'vitest';
import { redactDeep, redactPem } from './redact.js';

describe('redactPem', () => {
  it('hides the password hashes of haproxy.cfg userlists, keeping the user names', () => {
    const cfg = [
      'userlist auth_ing_apps_private_echo_8080',
      '  user "foo" password "\\$2y\\$05\\$abcdefghijklmnopqrstuuLK7U1u6pVRmL7L1BBM2aS35PSZnDXlK"',
      '  user "a \\" b" password "\\$6\\$salt\\$hash" groups admins',
      '  user bob insecure-password hunter2',
      '',
      'backend ing_apps_private_echo_8080',
      '  http-request auth realm "password here" unless { http_auth(auth_ing_apps_private_echo_8080) }',
    ].join('\n');
    const out = redactPem(cfg);
    expect(out).not.toMatch(/abcdefghij|salt|hash|hunter2/);
    expect(out.split('\n')).toEqual([
      'userlist auth_ing_apps_private_echo_8080',
      '  user "foo" password <redacted>',
      '  user "a \\" b" password <redacted> groups admins',
      '  user bob insecure-password <redacted>',
      '',
      'backend ing_apps_private_echo_8080',
      '  http-request auth realm "password here" unless { http_auth(auth_ing_apps_private_echo_8080) }',
    ]);
  });

  it('reaches rendered outputs through redactDeep', () => {
    const rendered = { outputs: { 'haproxy.cfg': 'userlist u\n  user x password $1$ab$cd\n' } };
    expect(redactDeep(rendered)).toEqual({
      outputs: { 'haproxy.cfg': 'userlist u\n  user x password <redacted>\n' },
    });
  });
});
