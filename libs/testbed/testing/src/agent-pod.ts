import { putStatus } from './conflict.js';

/** What the helpers need of kube-sim (or any API server the test writes to). */
export interface PodApi {
  readonly url: string;
  apply(object: {
    apiVersion: string;
    kind: string;
    metadata: { name: string; namespace?: string; labels?: Record<string, string> };
    [key: string]: unknown;
  }): Promise<unknown>;
}

/** Where an agent (a Dataplane API) of one HAProxy pod answers. */
export interface AgentPod {
  readonly namespace?: string;
  readonly name: string;
  readonly address: string;
  readonly port: number;
  readonly labels?: Readonly<Record<string, string>>;
}

/**
 * Declares an HAProxy pod whose `dataplane` container is an agent already running at
 * `address:port`, and reports it Running and ready through the status subresource, as a kubelet
 * would: the controller's pod discovery finds it like a real one. Labels default to app=haproxy.
 */
export async function registerAgentPod(api: PodApi, pod: AgentPod): Promise<void> {
  const namespace = pod.namespace ?? 'haptic';
  await api.apply({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { namespace, name: pod.name, labels: { ...(pod.labels ?? { app: 'haproxy' }) } },
    spec: {
      containers: [
        {
          name: 'dataplane',
          image: 'haptic',
          ports: [{ name: 'dataplane', containerPort: pod.port }],
        },
      ],
    },
  });
  await putStatus(`${api.url}/api/v1/namespaces/${namespace}/pods/${pod.name}`, {
    phase: 'Running',
    podIP: pod.address,
    containerStatuses: [{ name: 'dataplane', ready: true }],
  });
}

/** The Secret `credentialsSecretRef` names: the Dataplane API's username and password. */
export function dataplaneCredentialsSecret(
  credentials: { readonly username: string; readonly password: string },
  ref: { readonly namespace?: string; readonly name?: string } = {},
) {
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { namespace: ref.namespace ?? 'haptic', name: ref.name ?? 'dp-creds' },
    data: {
      dataplane_username: b64(credentials.username),
      dataplane_password: b64(credentials.password),
    },
  };
}
