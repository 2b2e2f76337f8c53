/** DI tokens; the two shared with the index come from `#events`. */
export { OBJECT_FETCH_PORT, RESOURCE_SINK } from '#events';
export const KUBE_API = Symbol.for('haptic.watch.KubeApi');
export const WATCH_OPTIONS = Symbol.for('haptic.watch.Options');
