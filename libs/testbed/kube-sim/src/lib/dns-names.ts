/**
 * k8s.io/apimachinery/pkg/util/validation's name checks, with the messages the real API server
 * returns (each a list of problems; empty when the value is valid).
 */

const label1123 = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const subdomain1123 = `${label1123}(\\.${label1123})*`;
const label1035 = '[a-z]([-a-z0-9]*[a-z0-9])?';

const tooLong = (max: number): string => `must be no more than ${max} characters`;

export function dns1123Label(v: string): string[] {
  const out: string[] = [];
  if (v.length > 63) out.push(tooLong(63));
  if (!new RegExp(`^${label1123}$`).test(v))
    out.push(
      `a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '${label1123}')`,
    );
  return out;
}

export function dns1123Subdomain(v: string): string[] {
  const out: string[] = [];
  if (v.length > 253) out.push(tooLong(253));
  if (!new RegExp(`^${subdomain1123}$`).test(v))
    out.push(
      `a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '${subdomain1123}')`,
    );
  return out;
}

export function dns1035Label(v: string): string[] {
  const out: string[] = [];
  if (v.length > 63) out.push(tooLong(63));
  if (!new RegExp(`^${label1035}$`).test(v))
    out.push(
      `a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '${label1035}')`,
    );
  return out;
}

/** `*.` followed by a DNS-1123 subdomain (Ingress hosts, TLS hosts). */
export function wildcardDns1123Subdomain(v: string): string[] {
  const out: string[] = [];
  if (v.length > 253) out.push(tooLong(253));
  const re = `\\*\\.${subdomain1123}`;
  if (!new RegExp(`^${re}$`).test(v))
    out.push(
      `a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character (e.g. '*.example.com', regex used for validation is '${re}')`,
    );
  return out;
}

/** RBAC and a few other kinds: any name that is a valid URL path segment. */
export function pathSegmentName(v: string): string[] {
  if (v === '.' || v === '..') return [`may not be '${v}'`];
  for (const bad of ['/', '%']) if (v.includes(bad)) return [`may not contain '${bad}'`];
  return [];
}

/** IANA_SVC_NAME: a port name (Service ports, Ingress backend port names). */
export function portName(v: string): string[] {
  const out: string[] = [];
  if (v.length > 15) out.push(tooLong(15));
  if (!/^[-a-z0-9]+$/.test(v))
    out.push('must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)');
  if (v.includes('--')) out.push('must not contain consecutive hyphens');
  if (!/[a-z]/.test(v)) out.push('must contain at least one letter (a-z)');
  if (v.startsWith('-') || v.endsWith('-')) out.push('must not begin or end with a hyphen');
  return out;
}

export function isIPv4(v: string): boolean {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(v);
  return m !== null && m.slice(1).every((p) => Number(p) <= 255);
}
