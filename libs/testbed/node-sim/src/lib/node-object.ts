import { arch, cpus, hostname, release, totalmem } from 'node:os';
import type { CoreV1Api, V1Node, V1NodeCondition, V1NodeStatus } from '@kubernetes/client-node';
import { apiReason, apiStatus } from './cluster.js';

const GOARCH: Record<string, string> = { x64: 'amd64', arm64: 'arm64', arm: 'arm', ia32: '386' };

function condition(
  type: string,
  status: 'True' | 'False' | 'Unknown',
  reason: string,
  message: string,
  now: string,
): V1NodeCondition {
  return {
    type,
    status,
    reason,
    message,
    lastHeartbeatTime: now as unknown as Date,
    lastTransitionTime: now as unknown as Date,
  };
}

/** The status the kubelet posts for this machine: addresses, conditions, capacity, node info. */
export function nodeStatus(
  nodeIP: string,
  nodeName: string,
  ready: boolean,
  now: string,
): V1NodeStatus {
  const capacity = {
    cpu: String(cpus().length),
    memory: `${Math.floor(totalmem() / 1024)}Ki`,
    pods: '110',
    'ephemeral-storage': '0',
  };
  const fine = (type: string, reason: string, message: string) =>
    condition(type, 'False', reason, message, now);
  return {
    addresses: [
      { type: 'InternalIP', address: nodeIP },
      { type: 'Hostname', address: nodeName },
    ],
    capacity,
    allocatable: capacity,
    conditions: [
      fine(
        'MemoryPressure',
        'KubeletHasSufficientMemory',
        'kubelet has sufficient memory available',
      ),
      fine('DiskPressure', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'),
      fine('PIDPressure', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'),
      ready
        ? condition('Ready', 'True', 'KubeletReady', 'kubelet is posting ready status', now)
        : condition(
            'Ready',
            'Unknown',
            'NodeStatusUnknown',
            'Kubelet stopped posting node status.',
            now,
          ),
    ],
    nodeInfo: {
      architecture: GOARCH[arch()] ?? arch(),
      operatingSystem: 'linux',
      osImage: `node-sim on ${hostname()}`,
      kernelVersion: release(),
      kubeletVersion: 'v1.31.0-node-sim',
      kubeProxyVersion: 'v1.31.0-node-sim',
      containerRuntimeVersion: 'node-sim://1',
      machineID: '',
      systemUUID: '',
      bootID: '',
    },
  };
}

/**
 * Registers the Node (create, or take over one of that name) and posts its status, as a kubelet
 * does on start; on stop the Ready condition goes Unknown, as the node controller sets it.
 */
export class NodeRegistration {
  constructor(
    private readonly core: CoreV1Api,
    private readonly nodeName: string,
    private readonly nodeIP: string,
    private readonly log: (line: string) => void,
  ) {}

  async register(): Promise<void> {
    const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
    let node: V1Node;
    try {
      node = await this.core.readNode({ name: this.nodeName });
    } catch (e) {
      if (apiStatus(e) !== 404) throw e;
      node = await this.core.createNode({
        body: {
          apiVersion: 'v1',
          kind: 'Node',
          metadata: {
            name: this.nodeName,
            labels: {
              'kubernetes.io/hostname': this.nodeName,
              'kubernetes.io/os': 'linux',
              'kubernetes.io/arch': GOARCH[arch()] ?? arch(),
              'node.kubernetes.io/instance-type': 'node-sim',
            },
          },
          spec: {},
        },
      });
    }
    await this.post(node, true, now);
  }

  /** Ready goes Unknown (best effort: the API server may be gone already). */
  async unregister(): Promise<void> {
    const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
    try {
      const node = await this.core.readNode({ name: this.nodeName });
      await this.post(node, false, now);
    } catch (e) {
      this.log(`node ${this.nodeName}: could not post NotReady (${apiReason(e)})`);
    }
  }

  private async post(node: V1Node, ready: boolean, now: string): Promise<void> {
    await this.core.replaceNodeStatus({
      name: this.nodeName,
      body: { ...node, status: nodeStatus(this.nodeIP, this.nodeName, ready, now) },
    });
  }
}
