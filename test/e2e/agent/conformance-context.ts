import { expect } from 'vitest';
import type { RunningAgent } from '../../../apps/agent/src/index.js';
import type { ApiAnswer, ApiClient } from './helpers.js';

/** The API prefix every step uses. */
export const S = '/v3/services/haproxy';

/** What the conformance steps share: the client (observed by the spec checker) and fixtures. */
export interface ConformanceContext {
  readonly api: ApiClient;
  readonly agent: RunningAgent;
  readonly up: { readonly port: number };
  readonly pems: Readonly<Record<string, string>>;
  readonly cfg: (extra?: string) => string;
}

/** Awaits an answer and checks its status (the body is the failure message). */
export async function expectStatus(p: Promise<ApiAnswer>, status: number): Promise<ApiAnswer> {
  const a = await p;
  expect(a.status, a.body).toBe(status);
  return a;
}
