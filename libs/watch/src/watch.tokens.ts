/** DI tokens; the two shared with the index are named by Symbol.for so no import is needed. */
export const RESOURCE_SINK = Symbol.for('haptic.ResourceSink');
export const OBJECT_FETCH_PORT = Symbol.for('haptic.ObjectFetchPort');
export const KUBE_API = Symbol.for('haptic.watch.KubeApi');
export const WATCH_OPTIONS = Symbol.for('haptic.watch.Options');
