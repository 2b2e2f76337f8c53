// Basic authentication of the ingress-nginx library (auth-type: basic): the annotations read with
// ingress-nginx's semantics, and the users of the Secret they name (auth-file: htpasswd lines in
// key `auth`; auth-map: a key per user, the hash its value). A missing Secret (or key, or one in
// another namespace: ingress-nginx's allow-cross-namespace-resources defaults to false) denies the
// Ingress's locations with 503, as ingress-nginx does. A line HAProxy cannot check is left out
// (that user cannot log in) with a notice naming the Ingress, the Secret and the line: never
// opened, never a broken haproxy.cfg. Hashes are secret-bearing: no message ever quotes one.
import { objectRef } from '../snapshot.js';
import type { RenderNotice } from '../types.js';
import { field, isNil, path, str } from '../liquid-values.js';
import { NGINX_PREFIX } from './catalogue-types.js';
import { NginxRefusal, ingressIdOf } from './reader.js';

/** One user of a userlist. */
export interface AuthUser {
  readonly name: string;
  /** A crypt(3) hash HAProxy's userlist checks. */
  readonly hash: string;
}

/** Basic authentication of one Ingress's locations. */
export interface NginxAuth {
  /** `WWW-Authenticate: Basic realm="<realm>"`. */
  readonly realm: string;
  readonly users: readonly AuthUser[];
  /** Why the locations answer 503 instead (ingress-nginx's denied location), or undefined. */
  readonly denied: string | undefined;
}

/** What the annotations ask for (checked against their grammar). */
export interface BasicAuthSpec {
  readonly namespace: string;
  readonly secret: string;
  readonly type: 'auth-file' | 'auth-map';
  readonly realm: string;
}

const NAME = /^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$/;
// printable ASCII without `"` and `\`: HAProxy writes the realm between quotes unescaped
const REALM = /^[\x20\x21\x23-\x5b\x5d-\x7e]{0,256}$/;
/** The crypt(3) schemes the HAProxy builds (libxcrypt) were tested to check. */
const CRYPT = /^\$(1|5|6|2[aby])\$[A-Za-z0-9./$=]{1,512}$/;
// eslint-disable-next-line no-control-regex -- control characters are what a user name must not hold
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

function ann(ing: object, name: string): string | undefined {
  const v = field(path(ing, 'metadata', 'annotations'), NGINX_PREFIX + name);
  return isNil(v) ? undefined : str(v);
}

function refuse(ing: object, name: string, why: string): never {
  throw new NginxRefusal(`Ingress ${ingressIdOf(ing)}: annotation ${NGINX_PREFIX}${name}: ${why}`);
}

/**
 * The basic auth an Ingress asks for, or undefined (no `auth-type`; `digest` is refused by the
 * catalogue). Throws NginxRefusal for a value outside an annotation's grammar.
 */
export function basicAuthSpec(ing: object): BasicAuthSpec | undefined {
  const type = ann(ing, 'auth-type')?.trim();
  if (type === undefined) return undefined;
  if (type.toLowerCase() !== 'basic')
    refuse(ing, 'auth-type', `${JSON.stringify(type)} is not basic (digest is refused)`);
  const ref = ann(ing, 'auth-secret')?.trim() ?? '';
  const parts = ref.split('/');
  const name = parts.length === 2 ? (parts[1] ?? '') : ref;
  const namespace = parts.length === 2 ? (parts[0] ?? '') : str(path(ing, 'metadata', 'namespace'));
  if (ref !== '' && (parts.length > 2 || !NAME.test(name) || !NAME.test(namespace)))
    refuse(ing, 'auth-secret', `${JSON.stringify(ref)} is not a Secret name or namespace/name`);
  const secretType = ann(ing, 'auth-secret-type')?.trim() || 'auth-file';
  if (secretType !== 'auth-file' && secretType !== 'auth-map')
    refuse(ing, 'auth-secret-type', `${JSON.stringify(secretType)} is not auth-file or auth-map`);
  const realm = ann(ing, 'auth-realm') ?? '';
  if (!REALM.test(realm))
    refuse(ing, 'auth-realm', 'holds a character other than printable ASCII without " and \\');
  return { namespace, secret: ref === '' ? '' : name, type: secretType, realm };
}

/** Why a hash cannot be checked by HAProxy, or undefined. */
export function hashProblem(hash: string): string | undefined {
  if (CRYPT.test(hash)) return undefined;
  if (hash.startsWith('$apr1$'))
    return 'an apr1 (Apache MD5) hash, which is not a crypt(3) hash HAProxy can check: re-hash it with bcrypt (htpasswd -B) or SHA-512 crypt';
  if (/^\{[A-Z]+\}/.test(hash))
    return 'a {SCHEME} hash HAProxy cannot check: use bcrypt (htpasswd -B) or SHA-512 crypt';
  return 'not a bcrypt ($2y$/$2b$/$2a$), SHA-512 ($6$), SHA-256 ($5$) or MD5 ($1$) crypt hash';
}

type Note = (where: string, why: string) => undefined;

function decode(v: unknown): string | undefined {
  return typeof v === 'string' ? Buffer.from(v, 'base64').toString('utf8') : undefined;
}

/** One user, or a note on why it is left out. */
function userOf(name: string, hash: string, seen: Set<string>, where: string, note: Note) {
  if (name === '' || name.length > 256 || CONTROL.test(name))
    return note(where, 'the user name is empty, too long or holds a control character');
  const problem = hashProblem(hash);
  if (problem !== undefined) return note(where, `the password is ${problem}`);
  if (seen.has(name)) return note(where, 'the user is named earlier (the first one counts)');
  seen.add(name);
  return { name, hash };
}

/** The users of an htpasswd text (nginx: `user:hash[:comment]`, `#` comments). */
function fileUsers(text: string, note: Note): AuthUser[] {
  const users: AuthUser[] = [];
  const seen = new Set<string>();
  text.split('\n').forEach((raw, i) => {
    const line = raw.replace(/\r$/, '');
    if (line.trim() === '' || line.startsWith('#')) return;
    const where = `key auth line ${i + 1}`;
    const colon = line.indexOf(':');
    if (colon < 0) return note(where, 'is not user:hash');
    const hash = line.slice(colon + 1).split(':')[0] ?? '';
    const u = userOf(line.slice(0, colon), hash, seen, where, note);
    if (u) users.push(u);
  });
  return users;
}

/** The users of an auth-map Secret (each key a user, its value the hash). */
function mapUsers(data: unknown, note: Note): AuthUser[] {
  const users: AuthUser[] = [];
  const seen = new Set<string>();
  const keys = data !== null && typeof data === 'object' ? Object.keys(data).sort() : [];
  for (const key of keys) {
    const hash = (decode(field(data, key)) ?? '').trim();
    const u = userOf(key, hash, seen, `key ${JSON.stringify(key)}`, note);
    if (u) users.push(u);
  }
  return users;
}

/** The basic auth of one served Ingress (`secrets` looks a Secret up), its notices pushed to `notices`. */
export function nginxAuthOf(
  ing: object,
  spec: BasicAuthSpec,
  secrets: ((keys: readonly string[]) => readonly object[]) | undefined,
  notices: RenderNotice[],
): NginxAuth {
  const id = `Ingress ${ingressIdOf(ing)}`;
  const ref = `${spec.namespace}/${spec.secret}`;
  const deny = (why: string): NginxAuth => {
    const denied = `${id}: basic auth: ${why}; its locations answer 503`;
    notices.push({ message: denied, object: objectRef('ingresses', ing) });
    return { realm: spec.realm, users: [], denied };
  };
  if (spec.secret === '') return deny(`annotation ${NGINX_PREFIX}auth-secret is missing`);
  if (spec.namespace !== str(path(ing, 'metadata', 'namespace')))
    return deny(`Secret ${ref} is in another namespace (ingress-nginx refuses that by default)`);
  const secret = secrets?.([spec.namespace, spec.secret])[0];
  if (secret === undefined) return deny(`Secret ${ref} not found`);
  const data = field(secret, 'data');
  const note: Note = (where, why) => {
    void notices.push({
      message: `${id}: basic auth: Secret ${ref} ${where}: ${why}; that user cannot log in`,
      object: objectRef('secrets', secret),
    });
  };
  if (spec.type === 'auth-map')
    return { realm: spec.realm, users: mapUsers(data, note), denied: undefined };
  const text = decode(field(data, 'auth'));
  if (text === undefined) return deny(`Secret ${ref} has no key auth`);
  return { realm: spec.realm, users: fileUsers(text, note), denied: undefined };
}
