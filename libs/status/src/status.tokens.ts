/** StatusModule options (the config reference, reporter identity). */
export const STATUS_OPTIONS = Symbol.for('haptic.StatusOptions');
/** The StatusApi port (KubeStatusApi, or a fake in tests). */
export const STATUS_API = Symbol.for('haptic.StatusApi');

export interface StatusModuleOptions {
  /** The HAProxyTemplateConfig whose status is written (when the config names none). */
  readonly config: { readonly namespace: string; readonly name: string };
  /** reportingInstance of Events (the pod name). */
  readonly identity: string;
  /** How often the published address is re-read (Service and Node changes), ms; default 30 s. */
  readonly resyncMs?: number;
}

/** The GatewayStatusApi port (KubeGatewayStatusApi, or a fake in tests). */
export const GATEWAY_STATUS_API = Symbol.for('haptic.GatewayStatusApi');
/** Port: the current snapshot and config settings the Gateway API status is computed from. */
export const GATEWAY_STATUS_SOURCE = Symbol.for('haptic.GatewayStatusSource');

/** What the Gateway API status writer reads: the index snapshot and the config in force. */
export interface GatewayStatusSource {
  /** Undefined while no config is in force. */
  snapshot(): Promise<
    | {
        readonly list: (watched: string) => readonly object[];
        readonly watched: readonly string[];
        readonly extra: Readonly<Record<string, unknown>>;
        /** The config's podSelector (the HAProxy pods a Gateway's Service selects). */
        readonly podSelector?: {
          readonly matchLabels: Readonly<Record<string, string>>;
          readonly matchExpressions?: readonly unknown[];
        };
      }
    | undefined
  >;
}
