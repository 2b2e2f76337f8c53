import { stringify } from 'yaml';

/** A kubeconfig (YAML) that kubectl and @kubernetes/client-node accept for the simulator. */
export function kubeconfigYaml(opts: {
  url: string;
  ca?: string | undefined;
  token?: string | undefined;
  namespace?: string;
}): string {
  const cluster: Record<string, unknown> = { server: opts.url };
  // client-node refuses http:// servers unless TLS verification is explicitly off.
  if (opts.ca) cluster['certificate-authority-data'] = Buffer.from(opts.ca).toString('base64');
  else cluster['insecure-skip-tls-verify'] = true;
  const user: Record<string, unknown> = opts.token ? { token: opts.token } : {};
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'kube-sim', cluster }],
    users: [{ name: 'kube-sim', user }],
    contexts: [
      {
        name: 'kube-sim',
        context: { cluster: 'kube-sim', user: 'kube-sim', namespace: opts.namespace ?? 'default' },
      },
    ],
    'current-context': 'kube-sim',
    preferences: {},
  });
}
