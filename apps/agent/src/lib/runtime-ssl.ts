import {
  cliCommand,
  payloadMessage,
  RuntimeCommandError,
  type RuntimeSocket,
} from '#haproxy-config';
import { setTimeout as sleep } from 'node:timers/promises';
import { ApiError } from '../agent.errors.js';

/**
 * Sends a certificate command, retrying (bounded) while HAProxy says certificate operations are
 * locked (another commit, or a crt-list update, is still running in the worker).
 */
async function certCommand(
  admin: RuntimeSocket,
  message: string,
  timeoutMs = 10_000,
): Promise<string> {
  let reply = '';
  for (let i = 0; i < 40; i++) {
    reply = await admin.send(message, { timeoutMs });
    if (!/currently locked/i.test(reply)) return reply;
    await sleep(25);
  }
  return reply;
}

/** Certificate names the running worker knows (`show ssl cert`, committed ones). */
export async function runtimeCertNames(admin: RuntimeSocket): Promise<string[]> {
  const reply = await certCommand(admin, 'show ssl cert');
  const names: string[] = [];
  let inFiles = false;
  for (const line of reply.split('\n')) {
    const t = line.trim();
    if (t === '# filename') inFiles = true;
    else if (t.startsWith('#')) inFiles = false;
    else if (t !== '' && inFiles) names.push(t);
  }
  return names;
}

/** Finds the name HAProxy uses for a certificate: exact, or the one whose base name matches. */
export async function findRuntimeCert(
  admin: RuntimeSocket,
  name: string,
): Promise<string | undefined> {
  const names = await runtimeCertNames(admin);
  return names.find((n) => n === name) ?? names.find((n) => n.split('/').pop() === name);
}

/** `show ssl cert <name>` as an `ssl_certificate` (runtime view). */
export async function runtimeCertDetails(
  admin: RuntimeSocket,
  name: string,
): Promise<Record<string, unknown>> {
  const reply = await certCommand(admin, cliCommand('show', 'ssl', 'cert', name));
  const fields: Record<string, string> = {};
  for (const line of reply.split('\n')) {
    const i = line.indexOf(': ');
    if (i > 0) fields[line.slice(0, i).trim()] = line.slice(i + 2).trim();
  }
  if (!fields.Filename)
    throw new ApiError(404, `certificate ${name} not found: ${reply.trim().slice(0, 200)}`);
  const date = (v: string | undefined) =>
    v && !Number.isNaN(Date.parse(v)) ? new Date(v).toISOString() : undefined;
  const view: Record<string, unknown> = {
    storage_name: name.split('/').pop() ?? name,
    file: fields.Filename,
    description: '',
    status: fields.Status ?? '',
    serial: fields.Serial ?? '',
    subject: fields.Subject ?? '',
    issuers: fields.Issuer ?? '',
    algorithm: fields.Algorithm ?? '',
    sha1_finger_print: fields['SHA1 FingerPrint'] ?? '',
    subject_alternative_names: fields['Subject Alternative Name'] ?? '',
  };
  const nb = date(fields.notBefore);
  const na = date(fields.notAfter);
  if (nb) view.not_before = nb;
  if (na) view.not_after = na;
  return view;
}

/**
 * Replaces a certificate's content in the running worker: `set ssl cert` with the PEM as
 * payload (blank lines removed: one would end the payload), then `commit ssl cert`.
 */
export async function setRuntimeCert(
  admin: RuntimeSocket,
  name: string,
  pem: string,
  create = false,
): Promise<void> {
  if (create) {
    const reply = await certCommand(admin, cliCommand('new', 'ssl', 'cert', name));
    if (!/New empty certificate store/i.test(reply))
      throw new RuntimeCommandError(`new ssl cert ${name}`, reply);
  }
  const lines = pem.split(/\r?\n/).filter((l) => l.trim() !== '');
  const reply = await certCommand(
    admin,
    payloadMessage(cliCommand('set', 'ssl', 'cert', name), lines),
  );
  if (!/Transaction (created|updated)/i.test(reply)) {
    await admin.send(cliCommand('abort', 'ssl', 'cert', name)).catch(() => '');
    throw new ApiError(400, `certificate ${name} rejected by HAProxy: ${reply.trim()}`);
  }
  const commit = await certCommand(admin, cliCommand('commit', 'ssl', 'cert', name), 60_000);
  if (!/Success!/.test(commit))
    throw new ApiError(400, `commit ssl cert ${name} failed: ${commit.trim()}`);
}

/** Removes an unused certificate from the running worker. */
export async function deleteRuntimeCert(admin: RuntimeSocket, name: string): Promise<void> {
  const reply = await certCommand(admin, cliCommand('del', 'ssl', 'cert', name));
  if (!/deleted/i.test(reply) || /can't|cannot|error/i.test(reply))
    throw new ApiError(400, `del ssl cert ${name}: ${reply.trim()}`);
}
