/**
 * DI tokens shared with watch by symbol name (Symbol.for gives both libs the same symbol without
 * an import between them); they move to `#events` with the port types.
 */
export const RESOURCE_SINK = Symbol.for('haptic.ResourceSink');
export const OBJECT_FETCH_PORT = Symbol.for('haptic.ObjectFetchPort');
/** Options of the index (cache bounds of on-demand stores). */
export const INDEX_OPTIONS = Symbol.for('haptic.IndexOptions');
