// Server options of backend TLS (proxy-ssl.ts) for an HTTPS or GRPCS backend, and the PEM files
// they name registered as certificates (they reach HAProxy's ssl storage; /debug shows no private
// key). nginx's directives map to HAProxy's: proxy_ssl_verify on → `verify required ca-file`,
// proxy_ssl_name → `verifyhost`, proxy_ssl_server_name on → `sni str(<name>)`,
// proxy_ssl_certificate → `crt`, proxy_ssl_protocols → `ssl-min-ver`/`ssl-max-ver`,
// proxy_ssl_ciphers → `ciphers`. Every value was checked against its grammar and is escaped again.
import type { Context } from 'liquidjs';
import { escapeOutput } from '../escaper.js';
import { certPath } from '../filters-context.js';
import { TemplateValueError, innermostObject } from '../provenance.js';
import { stateOf } from '../state.js';
import { registerInto } from '../tags.js';
import type { ProxySsl } from './proxy-ssl.js';

/** Registers a certificate file (one name, one content per render). */
function register(ctx: Context, file: { readonly name: string; readonly content: string }): void {
  const state = stateOf(ctx);
  const previous = state.certificates.get(file.name);
  if (previous !== undefined && previous !== file.content)
    throw new TemplateValueError(
      'registration-conflict',
      `nginx_backend: ${file.name} is already registered with different content`,
      innermostObject(ctx),
    );
  registerInto(state, { registry: 'certificates', name: file.name, content: file.content });
}

/**
 * The server options of a TLS backend (`alpn` for GRPCS given in `alpn`), with its proxy-ssl-*
 * settings when the Ingress has a usable proxy-ssl-secret; without one, ingress-nginx does not
 * verify the backend (`verify none`).
 */
export function proxySslOpts(ctx: Context, alpn: string, ssl: ProxySsl | undefined): string {
  if (ssl === undefined || ssl.denied !== undefined) return ` ssl verify none${alpn}`;
  const q = { context: ctx };
  const out = (v: string): string => escapeOutput.call(q, v);
  const { spec, ca, crt } = ssl;
  let opts = ' ssl';
  if (ca !== undefined) register(ctx, ca);
  if (ca !== undefined && spec.verify)
    opts += ` verify required ca-file ${out(certPath.call(q, ca.name))} verifyhost ${out(spec.name)}`;
  else opts += ' verify none';
  if (spec.serverName) opts += ` sni str(${out(spec.name)})`;
  if (crt !== undefined) {
    register(ctx, crt);
    opts += ` crt ${out(certPath.call(q, crt.name))}`;
  }
  // nginx writes protocols and ciphers only with a CA (its own defaults otherwise)
  if (ca !== undefined)
    opts += ` ssl-min-ver ${out(spec.minVer)} ssl-max-ver ${out(spec.maxVer)} ciphers ${out(spec.ciphers)}`;
  return opts + alpn;
}
