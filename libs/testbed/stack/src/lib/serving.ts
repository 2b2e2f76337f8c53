import type { ExampleRoute } from './examples.js';
import { send } from './http.js';
import type { PodAddress } from './stack.js';

/** What the echo backend says about the request it served. */
export interface EchoSeen {
  readonly service?: string;
  readonly pod?: string;
  readonly namespace?: string;
  readonly host?: string;
  readonly path?: string;
}

/** Sends `route` through one HAProxy pod; returns the echo's answer when the named Service served it. */
export async function servedBy(
  pod: PodAddress,
  ports: { http: number; https: number },
  route: ExampleRoute,
  ca: string,
): Promise<EchoSeen | undefined> {
  const reply = await send({
    address: pod.ip,
    port: route.scheme === 'https' ? ports.https : ports.http,
    host: route.host,
    path: route.path,
    ...(route.scheme === 'https' ? { tls: { ca } } : {}),
  });
  if (reply.status !== 200) return undefined;
  const seen = JSON.parse(reply.body) as EchoSeen;
  return seen.service === route.service ? seen : undefined;
}
