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

  it('hides the key of a backend client certificate (proxy-ssl-secret), keeping the certificates', () => {
    const cert = '-----BEGIN CERTIFICATE-----\nMIIBcert\n-----END CERTIFICATE-----\n';
    const key = '-----BEGIN PRIVATE KEY-----\nMIGHkeymaterial\n-----END PRIVATE KEY-----\n';
    const rendered = {
      outputs: {
        sslCertificates: {
          'proxyssl_ca_apps_upstream.pem': cert,
          'proxyssl_crt_apps_upstream.pem': cert + key,
        },
      },
    };
    const out = JSON.stringify(redactDeep(rendered));
    expect(out).not.toContain('keymaterial');
    expect(out).toContain('MIIBcert');
    expect(out).toContain('-----BEGIN PRIVATE KEY-----\\n<redacted>\\n-----END PRIVATE KEY-----');
  });

  it('reaches rendered outputs through redactDeep', () => {
    const rendered = { outputs: { 'haproxy.cfg': 'userlist u\n  user x password $1$ab$cd\n' } };
    expect(redactDeep(rendered)).toEqual({
      outputs: { 'haproxy.cfg': 'userlist u\n  user x password <redacted>\n' },
    });
  });
});
