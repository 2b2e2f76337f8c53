export * from './lib/types.js';
export { compileTemplates, BUILTIN_NAMES } from './lib/compile.js';
export type {
  CompiledTemplates,
  CompileOptions,
  CompiledTemplate,
  OutputKind,
} from './lib/compile.js';
export { render, renderYielding, DEFAULT_MAX_QUARANTINE, type YieldOptions } from './lib/render.js';
export { contentHash } from './lib/render-outputs.js';
export { DEFAULT_SLICE_MS } from './lib/drive.js';
export { BUILTIN_CONTEXT_PROVIDERS, contextProviders } from './lib/registry.js';
export { RejectedObjectsError } from './lib/provenance.js';
export {
  ingressModel,
  type IngressModel,
  type IngressRoute,
  type IngressBackend,
} from './lib/ingress/model.js';
export { ExcludingSnapshot, objectRef, refKey, compareObjects } from './lib/snapshot.js';
export { formatProblem } from './lib/problems.js';
export { HAPTIC_FILTERS, createEngine } from './lib/engine.js';
export { FORBIDDEN_CHARS } from './lib/escaper.js';
export { deployedServers } from './lib/previous.js';
export * from './render.errors.js';
export { RenderService, RENDER_CONTEXT_PROVIDERS } from './render.service.js';
export { RenderModule, type RenderModuleAsyncOptions } from './render.module.js';
export {
  RenderListener,
  RENDER_SNAPSHOT_SOURCE,
  type RenderSnapshotSource,
} from './render.listener.js';
export {
  NGINX_PREFIX,
  ANNOTATION_GROUPS,
  type AnnotationGroup,
  type AnnotationStatus,
  type NginxAnnotation,
} from './lib/ingress-nginx/catalogue-types.js';
export {
  NGINX_ANNOTATIONS,
  nginxAnnotation,
  judgeAnnotation,
  type AnnotationVerdict,
  type Verdict,
} from './lib/ingress-nginx/catalogue.js';
export {
  MigrateExit,
  MigrateInputError,
  VERDICTS,
  formatMigrationReport,
  ingressesOf,
  migrationReport,
  type IngressInput,
  type IngressVerdicts,
  type MigrationReport,
} from './lib/ingress-nginx/migrate.js';
