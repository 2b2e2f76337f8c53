import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { chartDir } from './chart.js';
import { demoExamples, type Examples } from './examples.js';
import { waitFor } from './http.js';
import { servedBy } from './serving.js';
import { StackError } from './stack.errors.js';
import { Stack, type PodAddress, type StackOptions } from './stack.js';
import { HAPROXY_SERVICE } from './topology.js';

/** The chart's Ingress libraries the demo can install (its examples are Ingresses). */
export const DEMO_LIBRARIES = ['ingress', 'ingress-nginx'] as const;
export type DemoLibrary = (typeof DEMO_LIBRARIES)[number];

/** The library name checked: one of DEMO_LIBRARIES and present in the chart, else a StackError naming the known ones. */
export function demoLibrary(name: string): DemoLibrary {
  const known = DEMO_LIBRARIES.find((l) => l === name);
  if (known === undefined || !existsSync(join(chartDir(), 'libraries', known, 'library.yaml')))
    throw new StackError(
      `unknown library "${name}" (the demo installs one of: ${DEMO_LIBRARIES.join(', ')})`,
    );
  return known;
}

/**
 * The chart values that select a library (none for the chart's default, the Ingress library).
 * ingress-nginx runs as its e2e tests run it when they try ssl-passthrough (with
 * --enable-ssl-passthrough): the library's enable_ssl_passthrough, off by default in the chart, costs
 * nothing until an Ingress asks for it.
 */
export function libraryChartValues(library: DemoLibrary): Record<string, string | boolean> {
  if (library === 'ingress') return {};
  return {
    'controller.config.library': library,
    ...(library === 'ingress-nginx'
      ? { 'controller.config.extraContext.enable_ssl_passthrough': true }
      : {}),
  };
}

interface IngressClassList {
  items: { metadata: { name: string; labels?: Record<string, string> } }[];
}

/** The IngressClass the release created (the chart labels it with the release as instance). */
export async function releaseIngressClass(stack: Stack): Promise<string> {
  const list = await stack.get<IngressClassList>('/apis/networking.k8s.io/v1/ingressclasses');
  const mine = list?.items.find(
    (c) => c.metadata.labels?.['app.kubernetes.io/instance'] === Stack.RELEASE,
  );
  if (!mine) throw new StackError(`the chart created no IngressClass of release ${Stack.RELEASE}`);
  return mine.metadata.name;
}

/** What `--state-file` receives once everything serves (scripts drive the demo with it). */
export interface DemoState {
  readonly kubeconfig: string;
  readonly haproxy: { readonly http: string; readonly https: string };
  readonly controller: {
    readonly health: string;
    readonly metrics: string;
    readonly webhook: string;
  };
  readonly agent: string;
  readonly hosts: readonly string[];
  /** The IngressClass the examples use (the library's: `haptic` for ingress, `nginx` for ingress-nginx). */
  readonly ingressClass: string;
  readonly library: DemoLibrary;
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

/**
 * Brings the stack up with `helm install` of the chart (with `library`, default ingress), applies
 * the examples with the release's IngressClass and waits until every example route is served by
 * every HAProxy pod and through the node ports.
 */
export async function startDemo(
  options: Omit<StackOptions, 'library'> & { dir: string; library?: DemoLibrary },
): Promise<Demo> {
  // the chart picks the library by name (StackOptions.library is an assembled one, unused here)
  const { library: name, ...stackOptions } = options;
  const library = demoLibrary(name ?? 'ingress');
  const stack = await Stack.start({
    ...stackOptions,
    install: 'chart',
    chartValues: { ...libraryChartValues(library), ...options.chartValues },
  });
  try {
    const ingressClass = await releaseIngressClass(stack);
    const examples = await demoExamples(ingressClass);
    await stack.apply(examples.objects);
    const caFile = join(options.dir, 'secure.demo.local.crt');
    await writeFile(caFile, examples.tls.cert);
    const t = stack.topology;
    const http = await stack.nodePortAddress(t.namespace, HAPROXY_SERVICE, 'http');
    const https = await stack.nodePortAddress(t.namespace, HAPROXY_SERVICE, 'https');
    const haproxy = await stack.haproxyPods();
    const entries = [
      ...haproxy.map((pod) => ({ pod, ports: { http: t.httpPort, https: t.httpsPort } })),
      // the Service's node ports, as the printed commands use them
      {
        pod: { name: 'the node ports', ip: http.address },
        ports: { http: http.port, https: https.port },
      },
    ];
    for (const { pod, ports } of entries)
      for (const route of examples.routes)
        await waitFor(
          `${route.scheme}://${route.host}${route.path} to be served by ${route.service} through ${pod.name}`,
          () => servedBy(pod, ports, route, examples.tls.cert),
          120_000,
          250,
        );
    const controllers = await stack.controllerPods();
    const [h, c] = [haproxy[0]!, controllers[0]!];
    const state: DemoState = {
      kubeconfig: stack.kubeconfigPath,
      haproxy: {
        http: `http://${http.address}:${http.port}`,
        https: `https://${https.address}:${https.port}`,
      },
      controller: {
        health: `http://${c.ip}:${t.healthPort}`,
        metrics: `http://${c.ip}:${t.metricsPort}/metrics`,
        webhook: `https://${c.ip}:${WEBHOOK_PORT}/validate`,
      },
      agent: `http://${h.ip}:${t.dataplanePort}/v3`,
      hosts: examples.hosts,
      ingressClass,
      library,
    };
    return { stack, examples, state, haproxy, controllers, caFile };
  } catch (e) {
    await stack.stop();
    throw e;
  }
}

/** The controller's webhook port (the chart's controller.ports.webhook). */
const WEBHOOK_PORT = 9443;

/** The few lines the demo prints: what runs, and commands to try. */
export function describeDemo(d: Demo, kubectl: string): string {
  const t = d.stack.topology;
  const kc = `${kubectl} --kubeconfig ${d.state.kubeconfig}`;
  const pods = (list: readonly PodAddress[]) => list.map((p) => `${p.name} ${p.ip}`).join(', ');
  const https = new URL(d.state.haproxy.https);
  return [
    'haptic demo is running (Ctrl-C stops everything it started)',
    `  kube-sim     ${d.stack.kubeSim.url}  (kubeconfig ${d.state.kubeconfig})`,
    `  node-sim     runs every pod below as local processes, each on its own 127.x address, and plays kube-proxy`,
    `  chart        helm install ${Stack.RELEASE} helm/haptic -n ${t.namespace} (pinned helm, server-side apply; default values but test-bed ports, webhook on)`,
    `  HAProxy      ${pods(d.haproxy)}  (HAProxy + agent sidecar, two containers; :${t.httpPort} http, :${t.httpsPort} https)`,
    `               Service ${HAPROXY_SERVICE} (NodePort): ${d.state.haproxy.http} and ${d.state.haproxy.https}`,
    `  controller   ${pods(d.controllers)}  (leader-elected pair; :${t.healthPort} health and /debug, :${t.metricsPort} metrics, :${WEBHOOK_PORT} webhook)`,
    `  library      ${d.state.library} (IngressClass ${d.state.ingressClass})`,
    `  examples     namespace ${d.examples.namespace}: echo Deployments web (2 pods), api, fallback; Ingresses web (Prefix /, Prefix /api, Exact /version), secure (TLS), fallback (default backend)`,
    '',
    'Try:',
    `  curl -H 'Host: web.demo.local' ${d.state.haproxy.http}/`,
    `  curl -H 'Host: web.demo.local' ${d.state.haproxy.http}/api/users`,
    `  curl --cacert ${d.caFile} --resolve secure.demo.local:${https.port}:${https.hostname} https://secure.demo.local:${https.port}/`,
    `  curl -H 'Host: anything.example' ${d.state.haproxy.http}/   # default backend`,
    `  ${kc} get pods,ingresses -A`,
    `  ${kc} -n ${t.namespace} get lease haptic-controller   # which controller leads`,
    `  ${kc} -n demo scale deployment web --replicas=4   # then curl web.demo.local again`,
    `  curl ${d.state.controller.health}/debug/pods   ·   curl ${d.state.controller.metrics}`,
    '',
    'On a real cluster: helm install haptic helm/haptic -n haptic --create-namespace',
    '  (or run the controller from here: npx haptic run --kubeconfig ~/.kube/config -n <namespace> -c <config name>)',
  ].join('\n');
}
