import type { ContextProvider } from '../types.js';

/**
 * Ingress apps/web on Service echo port 80, and a `backends` provider listing its one backend
 * as `ingress.backends` has it (the Ingress is the snapshot's object): `svc_apps_echo_80`
 * without annotations, `ing_apps_web_echo_80` with them.
 */
export function webBackend(annotations: Record<string, string> | undefined): {
  ing: object;
  name: string;
  backends: ContextProvider;
} {
  const ing = { kind: 'Ingress', metadata: { namespace: 'apps', name: 'web', annotations } };
  const name = annotations === undefined ? 'svc_apps_echo_80' : 'ing_apps_web_echo_80';
  const backends: ContextProvider = {
    name: 'backends',
    provide: (snapshot) =>
      snapshot.list('ingresses').map((i) => ({
        name,
        namespace: 'apps',
        service: 'echo',
        port: '80',
        ingress: i,
      })),
  };
  return { ing, name, backends };
}
