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
];
