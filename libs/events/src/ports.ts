/**
 * Everything one render produces, by output kind; file names are storage names (no directories).
 * Shared by render (producer), validation and dataplane (consumers).
 */
export interface RenderedOutputs {
  readonly haproxyConfig: string;
  readonly maps: Readonly<Record<string, string>>;
  readonly files: Readonly<Record<string, string>>;
  readonly sslCertificates: Readonly<Record<string, string>>;
  readonly crtLists: Readonly<Record<string, string>>;
}

/** A render that passed validation, ready to deploy; `hash` identifies its content. */
export interface ValidatedRender {
  readonly hash: string;
  readonly outputs: RenderedOutputs;
  /** Generation of the HAProxyTemplateConfig it was rendered with. */
  readonly configGeneration: number;
  /**
   * Present when only what it changes at runtime was checked (its plan over the last validated
   * render needs no reload): `haproxy -c` of the whole configuration, under way off the critical
   * path; resolves true when it passed, false when it failed (never rejects). Nothing may reload
   * HAProxy with this render before it resolved true.
   */
  readonly pendingCheck?: Promise<boolean>;
}

/**
 * Port: the Ingresses the controller serves now (class selected, valid, not in conflict) and
 * every Ingress it watches, as the index holds them (status included). The composition root
 * provides it (the Ingress model lives with render, the status writer with status).
 */
export interface IngressStatusSource {
  ingresses(): Promise<{ readonly served: readonly object[]; readonly all: readonly object[] }>;
  /** A watched object as the index holds it (for the uid and kind of an Event), if any. */
  object(watched: string, namespace: string | undefined, name: string): Promise<object | undefined>;
}
