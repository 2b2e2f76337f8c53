import type { KubeObject } from '#testbed/kube-sim';
import { NS, get, host, ingress, type NginxCase } from './cases.js';

// Backend TLS as ingress-nginx's proxy-ssl-* annotations give it, against the suite's echo-tls
// (HTTPS only, a self-signed certificate for the name echo-tls, its Secret echo-tls-cert holding
// it as ca.crt too). A failed verification answers 503 in haptic (HAProxy reached no server)
// where ingress-nginx answers 502: a documented deviation.

/** A certificate that did not sign echo-tls's (the library tests' foo.bar.com one), base64. */
const STRANGER_CA =
  'LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUJuRENDQVVHZ0F3SUJBZ0lVWHk4eEthc1gwV3ZyU25kWFRiTTVXZEl4cGVJd0NnWUlLb1pJemowRUF3SXcKRmpFVU1CSUdBMVVFQXd3TFptOXZMbUpoY2k1amIyMHdJQmNOTWpZeE1USTVNVGN6TVRVMldoZ1BNakV5TmpFeApNRFV4TnpNeE5UWmFNQll4RkRBU0JnTlZCQU1NQzJadmJ5NWlZWEl1WTI5dE1Ga3dFd1lIS29aSXpqMENBUVlJCktvWkl6ajBEQVFjRFFnQUVCQ09JcDhXVUdaR1ZhSFhoOEwxM1R3OTJiZWVBWENqazM3NHdNR3dLT3VNZXgwaDAKcTh4bmJwV0NRajlVOFZMSkRVRklzWGUxaE5TOEY5UWtSTFJDdWFOck1Ha3dIUVlEVlIwT0JCWUVGSlVCQkJNcQpCYkZINWJZZUtjZ1RPMGVwUmpaSU1COEdBMVVkSXdRWU1CYUFGSlVCQkJNcUJiRkg1YlllS2NnVE8wZXBSalpJCk1BOEdBMVVkRXdFQi93UUZNQU1CQWY4d0ZnWURWUjBSQkE4d0RZSUxabTl2TG1KaGNpNWpiMjB3Q2dZSUtvWkkKemowRUF3SURTUUF3UmdJaEFNZk0xTDhWTXlLZXU3bklLeUkxdDlGSWNvbVdQVCtzRWlodGlNazR4ZmRtQWlFQQpwWUVYd3UxbDdpaUtCeDR5a0ZGNERRV3Q5K2tBaEJXRWxMdFNObDcwNXJFPQotLS0tLUVORCBDRVJUSUZJQ0FURS0tLS0tCg==';

const wrongCa: KubeObject = {
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { namespace: NS, name: 'backend-tls-wrong-ca' },
  type: 'Opaque',
  data: { 'ca.crt': STRANGER_CA },
};

const verify = (secret: string, name: string) => ({
  'backend-protocol': 'HTTPS',
  'proxy-ssl-secret': `${NS}/${secret}`,
  'proxy-ssl-verify': 'on',
  'proxy-ssl-name': name,
});
const ANNOTATIONS = ['proxy-ssl-secret', 'proxy-ssl-verify', 'proxy-ssl-name'];
const okHost = host('backend-tls');
const badHost = host('backend-tls-bad');
const cipherHost = host('backend-tls-ciphers');

/** proxy-ssl-*: verification passing (right CA and name) and failing (another CA, another name). */
export const BACKEND_TLS_CASES: readonly NginxCase[] = [
  {
    name: 'proxy-ssl-verify on with the right ca.crt and proxy-ssl-name: 200 from the HTTPS backend, the name sent as SNI',
    annotations: [...ANNOTATIONS, 'proxy-ssl-server-name', 'proxy-ssl-protocols'],
    objects: [
      ingress('backend-tls-ok', okHost, [['/', 'echo-tls']], {
        ...verify('echo-tls-cert', 'echo-tls'),
        'proxy-ssl-server-name': 'on',
        'proxy-ssl-protocols': 'TLSv1.2 TLSv1.3',
      }),
    ],
    steps: [
      {
        req: get(okHost, '/x'),
        expect: { status: 200, service: 'echo-tls', path: '/x', backendTls: true },
      },
    ],
  },
  {
    name: 'proxy-ssl-verify on with another CA or another proxy-ssl-name: the request fails (503), other locations served',
    annotations: ANNOTATIONS,
    objects: [
      wrongCa,
      ingress(
        'backend-tls-wrong-ca',
        badHost,
        [['/ca', 'echo-tls']],
        verify('backend-tls-wrong-ca', 'echo-tls'),
      ),
      ingress(
        'backend-tls-wrong-name',
        badHost,
        [['/name', 'echo-tls']],
        verify('echo-tls-cert', 'other-name'),
      ),
      ingress(
        'backend-tls-marker',
        badHost,
        [['/ok', 'echo-tls']],
        verify('echo-tls-cert', 'echo-tls'),
      ),
    ],
    steps: [
      { req: get(badHost, '/ok'), expect: { status: 200, service: 'echo-tls' } },
      { req: get(badHost, '/ca'), expect: { status: 503 } },
      { req: get(badHost, '/name'), expect: { status: 503 } },
    ],
  },
  {
    // echo-tls has an ECDSA certificate: an RSA-only cipher list shares no cipher with it
    name: 'proxy-ssl-ciphers: a cipher the backend offers is used (200); a list it shares none of fails the handshake (503)',
    annotations: ['proxy-ssl-ciphers', 'proxy-ssl-protocols', 'proxy-ssl-verify-depth'],
    objects: [
      ingress('backend-tls-ciphers-bad', cipherHost, [['/rsa', 'echo-tls']], {
        ...verify('echo-tls-cert', 'echo-tls'),
        'proxy-ssl-protocols': 'TLSv1.2',
        'proxy-ssl-ciphers': 'ECDHE-RSA-AES128-GCM-SHA256',
      }),
      ingress('backend-tls-ciphers-ok', cipherHost, [['/ecdsa', 'echo-tls']], {
        ...verify('echo-tls-cert', 'echo-tls'),
        'proxy-ssl-protocols': 'TLSv1.2',
        'proxy-ssl-ciphers': 'ECDHE-ECDSA-AES128-GCM-SHA256',
        'proxy-ssl-verify-depth': '1',
      }),
    ],
    steps: [
      {
        req: get(cipherHost, '/ecdsa'),
        expect: { status: 200, service: 'echo-tls', backendTls: true },
      },
      { req: get(cipherHost, '/rsa'), expect: { status: 503 } },
    ],
  },
];

const passHost = host('passthrough');
const terminatedHost = host('passthrough-terminated');

/**
 * ssl-passthrough, as ingress-nginx's "[Flag] enable-ssl-passthrough" e2e test judges it (the
 * demo runs the library with enable_ssl_passthrough, as that test runs the controller with
 * --enable-ssl-passthrough): the annotated host's TLS reaches its Service undecrypted (the client
 * sees echo-tls's own certificate, echo-tls sees the TLS), while another host on the same port,
 * and a connection without SNI, are terminated by HAProxy with the suite's certificate.
 */
export const PASSTHROUGH_CASES: readonly NginxCase[] = [
  {
    name: "ssl-passthrough: the host's TLS goes undecrypted to its Service (the backend's certificate), other hosts and no SNI are terminated",
    annotations: ['ssl-passthrough'],
    objects: [
      // (the marker's Ingress last: once it is served, so is the other)
      ingress('passthrough-terminated', terminatedHost, [['/']], {}, { tls: true }),
      ingress(
        'passthrough',
        passHost,
        [['/', 'echo-tls']],
        { 'ssl-passthrough': 'true' },
        { tls: true },
      ),
    ],
    steps: [
      {
        req: get(passHost, '/through?x=1', { https: true, insecure: true }),
        expect: {
          status: 200,
          serverCertificate: 'echo-tls',
          service: 'echo-tls',
          path: '/through?x=1',
          backendTls: true,
        },
      },
      {
        req: get(terminatedHost, '/t', { https: true }),
        expect: {
          status: 200,
          serverCertificate: '*.nginx.test',
          service: 'echo',
          backendTls: false,
        },
      },
      {
        req: get(terminatedHost, '/none', { https: true, sni: '' }),
        // without SNI: the release's default certificate, the Host routing
        expect: { status: 200, service: 'echo', path: '/none' },
      },
    ],
  },
];
