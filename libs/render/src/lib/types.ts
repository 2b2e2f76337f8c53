import type { DeepReadonly, TemplateConfigSpec } from '#core';
import type { RenderedOutputs } from '#events';

/** A success value or a list of problems; expected failures are results, not exceptions. */
export type Result<T, E> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: E };

/** The spec fields the renderer reads (a whole TemplateConfigSpec fits). */
export type RenderSpec = DeepReadonly<
  Pick<
    TemplateConfigSpec,
    | 'haproxyConfig'
    | 'templateSnippets'
    | 'maps'
    | 'files'
    | 'sslCertificates'
    | 'templatingSettings'
    | 'watchedResources'
    | 'dataplane'
  >
>;

/** Which watched object a value or a failure came from. */
export interface ObjectRef {
  /** The watched-resource name from the config (`resources.<watched>`). */
  readonly watched: string;
  readonly kind: string;
  readonly namespace?: string;
  readonly name: string;
}

export const RENDER_PROBLEM_CODES = [
  'syntax',
  'unknown-filter',
  'unknown-tag',
  'unknown-name',
  'unknown-snippet',
  'unsafe-output',
  'invalid-value',
  'fail',
  'registration-conflict',
  'render',
] as const;
/** Stable machine-readable kind of a template problem. */
export type RenderProblemCode = (typeof RENDER_PROBLEM_CODES)[number];

/** One problem in a template, located as precisely as the engine allows. */
export interface RenderProblem {
  readonly code: RenderProblemCode;
  /** `haproxy.cfg`, `map:<name>`, `file:<name>`, `cert:<name>` or a snippet name. */
  readonly template: string;
  readonly line?: number;
  readonly column?: number;
  readonly message: string;
  /** The watched object the failure is attributed to (and quarantined for), when one explains it. */
  readonly object?: ObjectRef;
  /** When no object explains it: the watched object being rendered at the time, for context. */
  readonly rendering?: ObjectRef;
}

/**
 * Something a render served but wants reported (e.g. an annotation an Ingress carries that the
 * library does not honour): not a failure, the object is served.
 */
export interface RenderNotice {
  readonly message: string;
  /** CamelCase reason of the Warning Event on the object (`RenderNotice` when absent). */
  readonly reason?: string;
  /** The watched object the notice is about. */
  readonly object?: ObjectRef;
}

/** An object left out of a render because it alone made the render fail. */
export interface QuarantinedObject {
  readonly object: ObjectRef;
  readonly problem: RenderProblem;
}

/**
 * Everything one render produces (the shared port type): crt-lists registered with
 * `register_crt_list`; certificates from `sslCertificates` templates and `register_certificate`.
 */
export type { RenderedOutputs };

export type RenderResult =
  | {
      readonly ok: true;
      readonly outputs: RenderedOutputs;
      /** sha256 (hex) over every output, in a fixed order. */
      readonly hash: string;
      readonly quarantined: readonly QuarantinedObject[];
      /** Render attempts made (1 when nothing was quarantined). */
      readonly attempts: number;
      /** What context providers asked to report about served objects (the last attempt's). */
      readonly notices?: readonly RenderNotice[];
    }
  | {
      readonly ok: false;
      readonly problems: readonly RenderProblem[];
      readonly quarantined: readonly QuarantinedObject[];
      readonly attempts: number;
    };

/**
 * Port: an immutable view of the index the renderer reads. Lists are in deterministic order
 * (namespace, then name); `lookup` matches by the watched resource's `indexBy` keys, exactly when
 * every key is given and by prefix when fewer are.
 */
export interface RenderSnapshot {
  list(watched: string): readonly object[];
  lookup(watched: string, keys: readonly string[]): readonly object[];
}

/** What a context provider may read besides the snapshot. */
export interface ProviderContext {
  /** templatingSettings.extraContext (with a validation test's values merged over it). */
  readonly extra: Readonly<Record<string, unknown>>;
  /** The watched-resource names of the config (the names `snapshot.list` knows). */
  readonly watched: readonly string[];
  /**
   * False in a full render (`RenderInputs.incremental: false`): a provider computes afresh,
   * reusing nothing it kept from earlier renders.
   */
  readonly incremental?: boolean;
  /** Reports a notice with the render's result (the object is still served). */
  readonly notice?: (notice: RenderNotice) => void;
}

/**
 * Port: another module adds a named top-level template variable computed from the snapshot.
 * An eager provider runs before every render (its failure fails the render); a `lazy` one runs
 * on first use in a render and may throw RejectedObjectsError to refuse objects all at once.
 */
export interface ContextProvider {
  readonly name: string;
  readonly lazy?: boolean;
  provide(snapshot: RenderSnapshot, context: ProviderContext): unknown;
}

/** Controller facts exposed to templates as `controller`. */
export interface ControllerContext {
  readonly haproxy_pods?: readonly unknown[];
  readonly is_leader?: boolean;
  readonly config_version?: string;
  readonly [key: string]: unknown;
}

/** What is currently deployed, for templates that keep server-slot names stable. */
export interface PreviousDeployment {
  readonly haproxyConfig: string;
  readonly maps?: Readonly<Record<string, string>>;
}

/** Per-render inputs besides the snapshot. */
export interface RenderInputs {
  readonly providers?: readonly ContextProvider[];
  readonly controller?: ControllerContext;
  readonly previous?: PreviousDeployment;
  /** Objects quarantined at most this many times before the render gives up (default 10). */
  readonly maxQuarantine?: number;
  /** Values merged (shallowly) over templatingSettings.extraContext, e.g. by a validation test. */
  readonly extra?: Readonly<Record<string, unknown>>;
  /** Wall-clock budget of one render attempt in ms (liquidjs renderLimit); unbounded when unset. */
  readonly timeLimitMs?: number;
  /**
   * Reuse the output of `{% render %}` fragments whose inputs are unchanged since the previous
   * render with the same compiled templates (default true); false renders everything afresh.
   */
  readonly incremental?: boolean;
  /**
   * Reuse the fragment cache without changing it (webhook dry runs): kept fragments are reused
   * when valid, but nothing rendered here is kept and nothing is dropped, so the next render
   * finds the cache as the last ordinary render left it.
   */
  readonly reuseOnly?: boolean;
}
