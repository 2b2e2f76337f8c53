import { GATEWAY_CASES, type GatewayCase } from './cases.js';
import { GATEWAY_CORE_CASES } from './gateway-core-cases.js';
import { HTTP_CORE_CASES } from './http-core-cases.js';
import { HTTP_EXTENDED_CASES } from './http-extended-cases.js';
import { GRPC_CASES } from './grpc-cases.js';
import { judgeCase } from './judging.js';
import {
  attachedSettled,
  gatewayAddress,
  manifests,
  pathOf,
  routeSettled,
  startStack,
} from './setup.js';
import type { Stack } from '#testbed/stack';

/** One case of the report: the Ingress suite's shape plus the upstream profile and level. */
export interface GatewayCaseReport {
  readonly name: string;
  readonly result: 'passed' | 'failed' | 'skipped';
  readonly reason: string;
  readonly profile: GatewayCase['profile'];
  readonly level: GatewayCase['level'];
}

export interface GatewaySuiteReport {
  readonly suite: 'gateway-api';
  readonly passed: number;
  readonly failed: number;
  readonly skipped: number;
  readonly cases: readonly GatewayCaseReport[];
}

/** One case: its manifests applied, its Gateways and routes settled, judged, then removed. */
async function runCase(stack: Stack, c: GatewayCase): Promise<string | undefined> {
  const objects = manifests(`tests/${c.file}`);
  await stack.apply(objects);
  try {
    const addresses = new Map<string, string>();
    for (const g of c.gateways ?? ['same-namespace'])
      addresses.set(g, await gatewayAddress(stack, g));
    for (const r of c.routes) await routeSettled(stack, r);
    if (c.attached) await attachedSettled(stack, c.attached);
    return await judgeCase(stack, c, addresses);
  } finally {
    for (const o of objects) await stack.delete(pathOf(o)).catch(() => undefined);
  }
}

/** Runs the Gateway API cases (all, or those named) against a fresh stack. */
export async function runGatewaySuite(
  names: readonly string[] | undefined,
  progress: (c: GatewayCaseReport) => void = () => undefined,
  log: (l: string) => void = () => undefined,
): Promise<GatewaySuiteReport> {
  const all = [
    ...GATEWAY_CASES,
    ...HTTP_CORE_CASES,
    ...GATEWAY_CORE_CASES,
    ...HTTP_EXTENDED_CASES,
    ...GRPC_CASES,
  ];
  const cases = names?.length ? all.filter((c) => names.includes(c.name)) : all;
  const unknown = (names ?? []).filter((n) => !all.some((c) => c.name === n));
  if (unknown.length > 0) throw new RangeError(`unknown Gateway API cases: ${unknown.join(', ')}`);
  const stack = await startStack(log);
  const reports: GatewayCaseReport[] = [];
  try {
    for (const c of cases) {
      const why = await runCase(stack, c).catch((e: unknown) =>
        e instanceof Error ? e.message : String(e),
      );
      const r: GatewayCaseReport = {
        name: c.name,
        result: why === undefined ? 'passed' : 'failed',
        reason: why ?? '',
        profile: c.profile,
        level: c.level,
      };
      reports.push(r);
      progress(r);
    }
  } finally {
    await stack.stop();
  }
  const count = (x: GatewayCaseReport['result']) => reports.filter((r) => r.result === x).length;
  return {
    suite: 'gateway-api',
    passed: count('passed'),
    failed: count('failed'),
    skipped: count('skipped'),
    cases: reports,
  };
}
