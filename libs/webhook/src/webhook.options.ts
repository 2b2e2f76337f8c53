import type { CertificateSource } from './lib/certificate-files.js';

/** DI token of the WebhookOptions. */
export const WEBHOOK_OPTIONS = Symbol('WEBHOOK_OPTIONS');

/** How the admission endpoint is served. */
export interface WebhookOptions {
  readonly address: string;
  /** HTTPS port (9443 in a cluster; 0 picks a free one). */
  readonly port: number;
  /** The serving certificate; without one the endpoint is not served (and says so at start). */
  readonly certificate?: CertificateSource;
  /** How often the certificate files are re-read for a rotation (default 10 s). */
  readonly reloadIntervalMs?: number;
  /** Time a config's embedded validation tests may take before the answer goes without them (default 5 s). */
  readonly testBudgetMs?: number;
}
