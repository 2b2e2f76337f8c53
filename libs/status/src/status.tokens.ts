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
