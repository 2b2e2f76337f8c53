export * from './lib/echo-config.js';
export * from './lib/echo.errors.js';
export * from './lib/request-assertions.js';
export {
  startHttpEcho,
  handleEchoRequest,
  type EchoListener,
  type RunningEcho,
} from './lib/http-echo.js';
export { startGrpcEcho, loadGrpcEchoPackage } from './lib/grpc-lazy.js';
export { GRPC_ECHO_SERVICE } from './lib/grpc-service.js';
export { startEcho } from './lib/start-echo.js';
