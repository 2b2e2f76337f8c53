/**
 * The fields of a watched resource that haptic itself writes, so that their change alone must
 * not trigger a render (DESIGN.md §9: status writes never trigger a render of their own): the
 * status of Ingresses (`status.loadBalancer`) and of the Gateway API kinds. Templates should
 * not read them — they are haptic's output, and other controllers write them for their own
 * classes. The status of every other kind (a Pod's readiness, a Service's load-balancer address)
 * is someone else's report about the world, which a template may read, so it still triggers.
 */
export function quietPathsOf(apiVersion: string, resources: string): readonly string[] {
  const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
  if (group === 'networking.k8s.io' && resources === 'ingresses') return ['status'];
  if (group === 'gateway.networking.k8s.io') return ['status'];
  return [];
}
