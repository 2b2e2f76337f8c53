/** DI tokens shared with watch come from `#events`. */
export { OBJECT_FETCH_PORT, RESOURCE_SINK } from '#events';
/** Options of the index (cache bounds of on-demand stores). */
export const INDEX_OPTIONS = Symbol.for('haptic.IndexOptions');
