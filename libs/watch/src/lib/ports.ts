/** The port shapes watch shares with the index live in `#events`. */
export type { IndexedResourceSpec, KubeObject, ObjectFetchPort, ResourceSink } from '#events';
