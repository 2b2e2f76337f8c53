import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { demoExamples, type Examples } from './examples.js';
import { waitFor } from './http.js';
import { servedBy } from './serving.js';
import { Stack, type PodAddress, type StackOptions } from './stack.js';

/** What `--state-file` receives once everything serves (scripts drive the demo with it). */
export interface DemoState {
  readonly kubeconfig: string;
  readonly haproxy: { readonly http: string; readonly https: string };
  readonly controller: {
    readonly health: string;
    readonly metrics: string;
    readonly webhook: string | null;
  };
  readonly agent: string;
  readonly hosts: readonly string[];
}

/** A running demo: the stack, its examples and what to print. */
export interface Demo {
  readonly stack: Stack;
  readonly examples: Examples;
  readonly state: DemoState;
  readonly haproxy: readonly PodAddress[];
  readonly controllers: readonly PodAddress[];
  readonly caFile: string;
}

/** Brings the stack up, applies the examples and waits until every example route is served by every HAProxy pod. */
export async function startDemo(options: StackOptions & { dir: string }): Promise<Demo> {
  const stack = await Stack.start(options);
  try {
    const examples = await demoExamples();
    await stack.apply(examples.objects);
    const caFile = join(options.dir, 'secure.demo.local.crt');
    await writeFile(caFile, examples.tls.cert);
    const t = stack.topology;
    const haproxy = await stack.haproxyPods();
    for (const pod of haproxy)
      for (const route of examples.routes)
        await waitFor(
          `${route.scheme}://${route.host}${route.path} to be served by ${route.service} through ${pod.name}`,
          () => servedBy(pod, { http: t.httpPort, https: t.httpsPort }, route, examples.tls.cert),
          120_000,
          250,
        );
    const controllers = await stack.controllerPods();
    const [h, c] = [haproxy[0]!, controllers[0]!];
    const state: DemoState = {
      kubeconfig: stack.kubeconfigPath,
      haproxy: { http: `http://${h.ip}:${t.httpPort}`, https: `https://${h.ip}:${t.httpsPort}` },
      controller: {
        health: `http://${c.ip}:${t.healthPort}`,
        metrics: `http://${c.ip}:${t.metricsPort}/metrics`,
        webhook: null, // `haptic run` has no admission webhook listener yet
      },
      agent: `http://${h.ip}:${t.dataplanePort}/v3`,
      hosts: examples.hosts,
    };
    return { stack, examples, state, haproxy, controllers, caFile };
  } catch (e) {
    await stack.stop();
    throw e;
  }
}

/** The few lines the demo prints: what runs, and commands to try. */
export function describeDemo(d: Demo, kubectl: string): string {
  const t = d.stack.topology;
  const h = d.haproxy[0]!;
  const kc = `${kubectl} --kubeconfig ${d.state.kubeconfig}`;
  const pods = (list: readonly PodAddress[]) => list.map((p) => `${p.name} ${p.ip}`).join(', ');
  return [
    'haptic demo is running (Ctrl-C stops everything it started)',
    `  kube-sim     ${d.stack.kubeSim.url}  (kubeconfig ${d.state.kubeconfig})`,
    `  node-sim     runs every pod below as local processes, each on its own 127.x address`,
    `  HAProxy      ${pods(d.haproxy)}  (agent + real HAProxy; :${t.httpPort} http, :${t.httpsPort} https)`,
    `  controller   ${pods(d.controllers)}  (haptic run; :${t.healthPort} health and /debug, :${t.metricsPort} metrics)`,
    `  examples     namespace ${d.examples.namespace}: echo Deployments web (2 pods), api, fallback; Ingresses web (Prefix /, Prefix /api, Exact /version), secure (TLS), fallback (default backend)`,
    '',
    'Try:',
    `  curl -H 'Host: web.demo.local' ${d.state.haproxy.http}/`,
    `  curl -H 'Host: web.demo.local' ${d.state.haproxy.http}/api/users`,
    `  curl --cacert ${d.caFile} --resolve secure.demo.local:${t.httpsPort}:${h.ip} https://secure.demo.local:${t.httpsPort}/`,
    `  curl -H 'Host: anything.example' ${d.state.haproxy.http}/   # default backend`,
    `  ${kc} get pods,ingresses -A`,
    `  ${kc} -n demo scale deployment web --replicas=4   # then curl web.demo.local again`,
    `  curl ${d.state.controller.health}/debug/pods   ·   curl ${d.state.controller.metrics}`,
    '',
    'On a real cluster: apply the HAProxyTemplateConfig (`npm run assemble:ingress`) and run',
    '  npx haptic run --kubeconfig ~/.kube/config -n <namespace> -c <config name>',
  ].join('\n');
}
