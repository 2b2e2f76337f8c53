import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveEchoConfig, startGrpcEcho, type RunningEcho } from '#testbed/echo';
import { consecutive } from './judge.js';
import { GrpcEchoClient } from './grpc-client.js';
import {
  GRPC_OK,
  GRPC_UNIMPLEMENTED,
  fullyQualified,
  judgeRpc,
  type GrpcReply,
} from './grpc-judge.js';

const ns = 'gateway-conformance-infra';
const ok = (pod: string, method = fullyQualified('Echo'), namespace = ns): GrpcReply => ({
  code: GRPC_OK,
  details: 'OK',
  assertions: { fullyQualifiedMethod: method, context: { namespace, pod } },
});

describe('the Gateway API runner judges gRPC calls as upstream does', () => {
  const x = { method: 'Echo' as const, backend: 'grpc-infra-backend-v1', namespace: ns };

  it('fails a wrong backend, a wrong namespace, a wrong method and a wrong status', () => {
    expect(judgeRpc(x, ok('grpc-infra-backend-v1-abc'))).toBeUndefined();
    expect(judgeRpc(x, ok('grpc-infra-backend-v2-abc'))).toMatch(/expected grpc-infra-backend-v1/);
    expect(judgeRpc(x, ok('grpc-infra-backend-v1-a', undefined, 'other'))).toMatch(/namespace/);
    expect(judgeRpc(x, ok('grpc-infra-backend-v1-a', fullyQualified('EchoTwo')))).toMatch(/method/);
    const unimpl = { code: GRPC_UNIMPLEMENTED, details: 'no route' };
    expect(judgeRpc(x, unimpl)).toMatch(/gRPC status 12/);
    expect(judgeRpc({ method: 'EchoThree', code: GRPC_UNIMPLEMENTED }, unimpl)).toBeUndefined();
    expect(judgeRpc({ method: 'EchoThree', code: GRPC_UNIMPLEMENTED }, ok('x'))).toMatch(
      /status 0/,
    );
  });

  it('needs three consecutive successes: two of three is a failure', async () => {
    const replies = [ok('grpc-infra-backend-v1-a'), ok('grpc-infra-backend-v1-a'), ok('other')];
    let i = 0;
    const why = await consecutive(
      () => Promise.resolve(judgeRpc(x, replies[i++ % replies.length]!)),
      { deadlineMs: 300, pauseMs: 1 },
    );
    expect(why).toMatch(/served by pod other/);
  });
});

describe('the runner gRPC client against the real gRPC echo backend', () => {
  let echo: RunningEcho;
  let target = '';
  beforeAll(async () => {
    const env = { POD_NAME: 'grpc-infra-backend-v2-7d9', NAMESPACE: ns };
    echo = await startGrpcEcho(resolveEchoConfig({ grpc: true, port: '0' }, env));
    target = `127.0.0.1:${echo.listeners[0]?.port ?? 0}`;
  });
  afterAll(async () => echo?.close());

  it('passes the right backend, fails a wrong one, and sees UNIMPLEMENTED for EchoThree', async () => {
    const client = new GrpcEchoClient(target, 'foo.bar.com');
    try {
      const two = { method: 'EchoTwo' as const, namespace: ns };
      expect(judgeRpc({ ...two, backend: 'grpc-infra-backend-v2' }, await client.call(two))).toBe(
        undefined,
      );
      expect(
        judgeRpc({ ...two, backend: 'grpc-infra-backend-v1' }, await client.call(two)),
      ).toMatch(/served by pod grpc-infra-backend-v2-7d9, expected grpc-infra-backend-v1/);
      const three = await client.call({ method: 'EchoThree' });
      expect(three.code).toBe(GRPC_UNIMPLEMENTED);
    } finally {
      client.close();
    }
  });
});
