export * from './lib/echo-config.js';
export * from './lib/echo.errors.js';
export * from './lib/request-assertions.js';
export {
  startHttpEcho,
  handleEchoRequest,
  type EchoListener,
  type RunningEcho,
} from './lib/http-echo.js';
export {
  startGrpcEcho,
  loadGrpcEchoPackage,
  grpcEchoProtoPath,
  GRPC_ECHO_SERVICE,
} from './lib/grpc-echo.js';
export { startEcho } from './lib/start-echo.js';
