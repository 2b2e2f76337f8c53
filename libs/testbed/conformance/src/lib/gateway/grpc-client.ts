import * as grpc from '@grpc/grpc-js';
import { GRPC_ECHO_SERVICE, loadGrpcEchoPackage } from '#testbed/echo';
import {
  GRPC_INTERNAL,
  type GrpcExpectation,
  type GrpcMethod,
  type GrpcReply,
} from './grpc-judge.js';

type Unary = (
  req: object,
  md: grpc.Metadata,
  options: grpc.CallOptions,
  cb: (err: grpc.ServiceError | null, res?: { assertions?: GrpcReply['assertions'] }) => void,
) => void;
type EchoStub = grpc.Client & Record<GrpcMethod, Unary>;
type EchoCtor = new (target: string, c: grpc.ChannelCredentials, o: grpc.ClientOptions) => EchoStub;

let ctor: Promise<EchoCtor> | undefined;

/** The generated client class of the echo service, from the proto the echo backend serves. */
function echoClientClass(): Promise<EchoCtor> {
  ctor ??= loadGrpcEchoPackage().then((pkg) => {
    let node: unknown = pkg;
    for (const part of GRPC_ECHO_SERVICE.split('.')) node = (node as Record<string, unknown>)[part];
    return node as EchoCtor;
  });
  return ctor;
}

/**
 * A plaintext (h2c) gRPC client to one Gateway address, as upstream's DefaultClient: one channel
 * reused across calls, the `:authority` fixed per client, reset after an INTERNAL status.
 */
export class GrpcEchoClient {
  private stub: EchoStub | undefined;

  constructor(
    private readonly target: string,
    private readonly authority: string | undefined,
  ) {}

  /** Sends one call and reports its status (never throws for a gRPC error status). */
  async call(x: GrpcExpectation, timeoutMs = 10_000): Promise<GrpcReply> {
    const stub = await this.connect();
    const md = new grpc.Metadata();
    for (const [k, v] of Object.entries(x.metadata ?? {})) md.set(k.toLowerCase(), v);
    const reply = await new Promise<GrpcReply>((resolve) => {
      stub[x.method]({}, md, { deadline: Date.now() + timeoutMs }, (err, res) =>
        resolve(
          err
            ? { code: err.code, details: err.details }
            : {
                code: 0,
                details: 'OK',
                ...(res?.assertions ? { assertions: res.assertions } : {}),
              },
        ),
      );
    });
    if (reply.code === GRPC_INTERNAL) this.close();
    return reply;
  }

  close(): void {
    this.stub?.close();
    this.stub = undefined;
  }

  private async connect(): Promise<EchoStub> {
    if (this.stub) return this.stub;
    const Ctor = await echoClientClass();
    const options: grpc.ClientOptions = this.authority
      ? { 'grpc.default_authority': this.authority }
      : {};
    this.stub = new Ctor(this.target, grpc.credentials.createInsecure(), options);
    return this.stub;
  }
}
