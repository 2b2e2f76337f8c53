import { describe, expect, it } from 'vitest';
import { resolveEchoConfig } from './echo-config.js';
import { EchoConfigError } from './echo.errors.js';

describe('resolveEchoConfig', () => {
  it('uses the upstream image defaults with an empty environment', () => {
    const c = resolveEchoConfig({}, {});
    expect(c).toEqual({
      mode: 'http',
      address: '127.0.0.1',
      httpPort: 3000,
      httpsPort: 8443,
      context: { namespace: '', ingress: '', service: '', pod: '' },
    });
  });

  it('reads the upstream image environment', () => {
    const c = resolveEchoConfig(
      {},
      {
        HTTP_PORT: '8080',
        H2C_PORT: '8081',
        HTTPS_PORT: '9443',
        NAMESPACE: 'gateway-conformance-infra',
        POD_NAME: 'infra-backend-v1-abc',
        SERVICE_NAME: 'infra-backend-v1',
        INGRESS_NAME: 'haptic',
        POD_IP: '127.0.10.7',
        TLS_SERVER_CERT: '/c.pem',
        TLS_SERVER_PRIVKEY: '/k.pem',
        TLS_CLIENT_CACERTS: '/ca.pem',
      },
    );
    expect(c).toMatchObject({
      mode: 'http',
      address: '127.0.10.7',
      httpPort: 8080,
      h2cPort: 8081,
      httpsPort: 9443,
      tls: { certFile: '/c.pem', keyFile: '/k.pem', clientCaFile: '/ca.pem' },
      context: {
        namespace: 'gateway-conformance-infra',
        ingress: 'haptic',
        service: 'infra-backend-v1',
        pod: 'infra-backend-v1-abc',
      },
    });
  });

  it('lets flags win over the environment and falls back to POD_NAMESPACE', () => {
    const c = resolveEchoConfig(
      { address: '127.0.0.5', port: '0', httpsPort: '0' },
      { HTTP_PORT: '1', POD_IP: '127.0.0.9', POD_NAMESPACE: 'ns' },
    );
    expect(c).toMatchObject({ address: '127.0.0.5', httpPort: 0, httpsPort: 0 });
    expect(c.context.namespace).toBe('ns');
  });

  it('switches to gRPC on --grpc or GRPC_ECHO_SERVER and reads the gRPC key variable', () => {
    expect(resolveEchoConfig({ grpc: true }, {}).mode).toBe('grpc');
    const c = resolveEchoConfig(
      {},
      { GRPC_ECHO_SERVER: '1', TLS_SERVER_CERT: '/c', TLS_SERVER_PRIV_KEY: '/k', H2C_PORT: '1' },
    );
    expect(c.mode).toBe('grpc');
    expect(c.tls).toEqual({ certFile: '/c', keyFile: '/k' });
    expect(c.h2cPort).toBeUndefined();
  });

  it('applies the echo-basic profile (h2c on 3001)', () => {
    expect(resolveEchoConfig({ profile: 'echo-basic' }, {}).h2cPort).toBe(3001);
    expect(() => resolveEchoConfig({ profile: 'nope' }, {})).toThrow(EchoConfigError);
  });

  it('rejects bad ports and half a TLS pair', () => {
    expect(() => resolveEchoConfig({ port: 'http' }, {})).toThrow(EchoConfigError);
    expect(() => resolveEchoConfig({}, { HTTP_PORT: '70000' })).toThrow(/port number/);
    expect(() => resolveEchoConfig({}, { TLS_SERVER_CERT: '/c' })).toThrow(/both/);
  });
});
