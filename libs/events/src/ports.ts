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
}
