/** The fully qualified name of the conformance echo service. */
export const GRPC_ECHO_SERVICE = 'gateway_api_conformance.echo_basic.grpcecho.GrpcEcho';
