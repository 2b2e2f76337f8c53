import type { Stack } from '#testbed/stack';

interface DebugEvent {
  readonly seq: number;
  readonly topic: string;
  readonly payload: {
    readonly watched?: string;
    readonly object?: { readonly namespace?: string; readonly name: string };
    readonly hash?: string;
    readonly pod?: string;
  };
}

async function json<T>(url: string): Promise<T | undefined> {
  const res = await fetch(url);
  return res.ok ? ((await res.json()) as T) : undefined;
}

/**
 * True once the controller has seen the Ingress `namespace/name`, rendered after the last change
 * it saw, the render holds every `address` (backend servers), and that render is deployed to every
 * ready HAProxy pod. Read from the controller's /debug endpoints only.
 */
export async function controllerSettled(
  stack: Stack,
  ingress: { readonly namespace: string; readonly name: string },
  addresses: readonly string[],
): Promise<boolean> {
  const [controller] = await stack.controllerPods();
  if (!controller) return false;
  const base = `http://${controller.ip}:${stack.topology.healthPort}/debug`;
  const events = (await json<{ events: DebugEvent[] }>(`${base}/events`))?.events ?? [];
  const seen = events.some(
    (e) =>
      e.topic === 'resource.changed' &&
      e.payload.watched === 'ingresses' &&
      e.payload.object?.namespace === ingress.namespace &&
      e.payload.object.name === ingress.name,
  );
  const lastChange = Math.max(
    0,
    ...events.filter((e) => e.topic === 'resource.changed').map((e) => e.seq),
  );
  const lastRender = events.filter((e) => e.topic === 'render.completed').pop();
  if (!seen || !lastRender || lastRender.seq < lastChange) return false;
  const rendered = await json<{ hash: string; outputs: unknown }>(`${base}/rendered`);
  if (!rendered || rendered.hash !== lastRender.payload.hash) return false;
  const text = JSON.stringify(rendered.outputs);
  if (!addresses.every((a) => text.includes(a))) return false;
  const pods = await stack.haproxyPods();
  return pods.every((p) =>
    events.some(
      (e) =>
        e.topic === 'deploy.completed' &&
        e.payload.hash === rendered.hash &&
        e.payload.pod === `${stack.topology.namespace}/${p.name}`,
    ),
  );
}
