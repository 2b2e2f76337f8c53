import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { startAdmissionServer, type AdmissionServer } from './lib/admission-server.js';
import { followKeyPair, readKeyPair } from './lib/certificate-files.js';
import { WebhookService } from './webhook.service.js';
import { WEBHOOK_OPTIONS, type WebhookOptions } from './webhook.options.js';

/**
 * The HTTPS admission endpoint of this replica (every replica serves it: reviews are dry runs,
 * not leader work). Starts when the application has bootstrapped, follows certificate rotation,
 * and stops with the application.
 */
@Injectable()
export class WebhookServer implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Webhook');
  private server: AdmissionServer | undefined;
  private stopFollowing: (() => void) | undefined;

  constructor(
    @Inject(WEBHOOK_OPTIONS) private readonly options: WebhookOptions,
    private readonly service: WebhookService,
  ) {}

  /** The port served, once started (undefined when no certificate is configured). */
  get port(): number | undefined {
    return this.server?.port;
  }

  async onApplicationBootstrap(): Promise<void> {
    const source = this.options.certificate;
    if (!source) {
      this.logger.log('admission webhook not served: no certificate given (--webhook-cert-dir)');
      return;
    }
    const pair = await readKeyPair(source);
    this.server = await startAdmissionServer(
      { address: this.options.address, port: this.options.port, pair },
      (body) => this.service.handle(body),
    );
    this.stopFollowing = followKeyPair(
      source,
      pair,
      this.options.reloadIntervalMs ?? 10_000,
      (next) => {
        this.server?.setKeyPair(next);
        this.logger.log(`webhook certificate reloaded from ${source.certFile}`);
      },
      (e) => this.logger.error(`${e.message}; the previous certificate stays in use`),
    );
    this.logger.log(`admission webhook on https :${this.server.port}/validate`);
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopFollowing?.();
    await this.server?.close();
    this.server = undefined;
  }
}
