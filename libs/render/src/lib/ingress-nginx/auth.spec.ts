import { describe, expect, it } from 'vitest';
import type { RenderNotice } from '../types.js';
import { basicAuthSpec, hashProblem, nginxAuthOf } from './auth.js';
import { NginxRefusal } from './reader.js';

const P = 'nginx.ingress.kubernetes.io/';
const BCRYPT = '$2y$05$abcdefghijklmnopqrstuuLK7U1u6pVRmL7L1BBM2aS35PSZnDXlK';
const SHA256 = '$5$saltsalt$OIdfjX.u4Y3SJ4I2bX8w5BMf1VAUhHABNUirScDzZi3';
const APR1 = '$apr1$abcdefgh$bGLO42WqKpmLoPH9uGWTg1';
const b64 = (s: string) => Buffer.from(s).toString('base64');

const ing = (annotations: Record<string, string>) => ({
  metadata: {
    namespace: 'apps',
    name: 'web',
    annotations: Object.fromEntries(Object.entries(annotations).map(([k, v]) => [P + k, v])),
  },
});
const secret = (ns: string, name: string, data: Record<string, string>) => ({
  kind: 'Secret',
  metadata: { namespace: ns, name },
  data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, b64(v)])),
});
const lookupIn =
  (...secrets: object[]) =>
  ([ns, name]: readonly string[]) =>
    secrets.filter((s) => {
      const m = (s as { metadata: { namespace: string; name: string } }).metadata;
      return m.namespace === ns && m.name === name;
    });

function authOf(annotations: Record<string, string>, ...secrets: object[]) {
  const i = ing(annotations);
  const spec = basicAuthSpec(i);
  if (spec === undefined) throw new Error('no basic auth');
  const notices: RenderNotice[] = [];
  return { auth: nginxAuthOf(i, spec, lookupIn(...secrets), notices), notices };
}

describe('basicAuthSpec', () => {
  it('reads the annotations with their defaults, nothing without auth-type', () => {
    expect(basicAuthSpec(ing({ 'auth-secret': 'x' }))).toBeUndefined();
    expect(basicAuthSpec(ing({ 'auth-type': 'basic', 'auth-secret': 'users' }))).toEqual({
      namespace: 'apps',
      secret: 'users',
      type: 'auth-file',
      realm: '',
    });
    expect(
      basicAuthSpec(
        ing({
          'auth-type': 'Basic',
          'auth-secret': 'other/users',
          'auth-secret-type': 'auth-map',
          'auth-realm': 'Go away',
        }),
      ),
    ).toEqual({ namespace: 'other', secret: 'users', type: 'auth-map', realm: 'Go away' });
  });

  it('refuses values outside the grammar, naming the Ingress and the annotation', () => {
    const bad: [Record<string, string>, RegExp][] = [
      [
        { 'auth-type': 'bearer' },
        /Ingress apps\/web: annotation \S+auth-type: "bearer" is not basic/,
      ],
      [{ 'auth-type': 'basic', 'auth-secret': 'a/b/c' }, /auth-secret: "a\/b\/c" is not a Secret/],
      [{ 'auth-type': 'basic', 'auth-secret': 'Bad_Name' }, /auth-secret/],
      [{ 'auth-type': 'basic', 'auth-secret-type': 'ldap' }, /auth-secret-type: "ldap"/],
      [{ 'auth-type': 'basic', 'auth-realm': 'a"b' }, /auth-realm:/],
      [{ 'auth-type': 'basic', 'auth-realm': 'a\nb' }, /auth-realm:/],
    ];
    for (const [a, why] of bad) {
      expect(() => basicAuthSpec(ing(a)), JSON.stringify(a)).toThrow(NginxRefusal);
      expect(() => basicAuthSpec(ing(a)), JSON.stringify(a)).toThrow(why);
    }
  });
});

describe('hashProblem', () => {
  it('accepts the crypt(3) schemes HAProxy checks and explains the others', () => {
    for (const h of [BCRYPT, '$2b$05$x', '$2a$05$x', '$6$s$h', SHA256, '$1$s$h'])
      expect(hashProblem(h), h).toBeUndefined();
    expect(hashProblem(APR1)).toMatch(/apr1 .*not a crypt\(3\) hash/);
    expect(hashProblem('{SHA}abc=')).toMatch(/\{SCHEME\}/);
    expect(hashProblem('plain')).toMatch(/not a bcrypt/);
    expect(hashProblem('$6$s$h"x')).toMatch(/not a bcrypt/);
  });
});

describe('nginxAuthOf', () => {
  it('reads htpasswd lines, leaving out the ones HAProxy cannot check with a notice naming the line', () => {
    const text = `foo:${BCRYPT}\n\n# comment\nno colon\nold:${APR1}\r\nbob:${SHA256}:a comment\nfoo:${SHA256}\n`;
    const { auth, notices } = authOf(
      { 'auth-type': 'basic', 'auth-secret': 'users', 'auth-realm': 'R' },
      secret('apps', 'users', { auth: text }),
    );
    expect(auth).toEqual({
      realm: 'R',
      users: [
        { name: 'foo', hash: BCRYPT },
        { name: 'bob', hash: SHA256 },
      ],
      denied: undefined,
    });
    expect(notices.map((n) => n.message)).toEqual([
      'Ingress apps/web: basic auth: Secret apps/users key auth line 4: is not user:hash; that user cannot log in',
      expect.stringMatching(
        /^Ingress apps\/web: basic auth: Secret apps\/users key auth line 5: the password is an apr1 /,
      ) as unknown,
      'Ingress apps/web: basic auth: Secret apps/users key auth line 7: the user is named earlier (the first one counts); that user cannot log in',
    ]);
    expect(notices[0]?.object).toEqual({
      watched: 'secrets',
      kind: 'Secret',
      namespace: 'apps',
      name: 'users',
    });
    // no notice quotes a hash
    for (const n of notices) expect(n.message).not.toMatch(/\$(2y|5|apr1)\$/);
  });

  it('reads an auth-map Secret: each key a user, its value the hash', () => {
    const { auth, notices } = authOf(
      { 'auth-type': 'basic', 'auth-secret': 'apps/map', 'auth-secret-type': 'auth-map' },
      secret('apps', 'map', { bob: `${SHA256}\n`, eve: APR1 }),
    );
    expect(auth.users).toEqual([{ name: 'bob', hash: SHA256 }]);
    expect(notices.map((n) => n.message)).toEqual([
      expect.stringMatching(
        /^Ingress apps\/web: basic auth: Secret apps\/map key "eve": the password is an apr1 /,
      ) as unknown,
    ]);
  });

  it('denies (503) without the Secret, its key, its name, or with one in another namespace', () => {
    const users = secret('apps', 'users', { auth: `foo:${BCRYPT}` });
    const cases: [Record<string, string>, string][] = [
      [{ 'auth-secret': 'absent' }, 'Secret apps/absent not found'],
      [{}, 'annotation nginx.ingress.kubernetes.io/auth-secret is missing'],
      [{ 'auth-secret': 'other/users' }, 'Secret other/users is in another namespace'],
      [{ 'auth-secret': 'nokey' }, 'Secret apps/nokey has no key auth'],
    ];
    for (const [a, why] of cases) {
      const { auth, notices } = authOf(
        { 'auth-type': 'basic', ...a },
        users,
        secret('other', 'users', { auth: `foo:${BCRYPT}` }),
        secret('apps', 'nokey', { other: `foo:${BCRYPT}` }),
      );
      expect(auth.users, why).toEqual([]);
      expect(auth.denied, why).toContain(`Ingress apps/web: basic auth: ${why}`);
      expect(
        notices.map((n) => n.message),
        why,
      ).toEqual([auth.denied]);
    }
  });
});
