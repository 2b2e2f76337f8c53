import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import {
  InjectMetric,
  makeGaugeProvider,
  makeHistogramProvider,
} from '@willsoto/nestjs-prometheus';
import type { Gauge, Histogram } from 'prom-client';
import { EVENT_BUS } from '#bus';
import type { HapticBus, ValidatedRender } from '#events';
import { certificateExpiries, outputBytes } from './lib/output-facts.js';

const RENDER_DURATION = 'haptic_render_duration_seconds';
const CONFIG_BYTES = 'haptic_config_bytes';
const CERT_EXPIRY = 'haptic_certificate_expiry_timestamp_seconds';

/**
 * Render metrics, read from the bus: render time (render.completed), and of the newest validated
 * render the bytes per output kind and each certificate's expiry.
 */
@Injectable()
export class RenderMetrics implements OnModuleInit, OnModuleDestroy {
  private readonly offs: (() => void)[] = [];

  constructor(
    @Inject(EVENT_BUS) private readonly bus: HapticBus,
    @InjectMetric(RENDER_DURATION) private readonly duration: Histogram,
    @InjectMetric(CONFIG_BYTES) private readonly configBytes: Gauge<'output'>,
    @InjectMetric(CERT_EXPIRY) private readonly expiry: Gauge<'certificate'>,
  ) {}

  onModuleInit(): void {
    const name = { name: 'render.metrics' };
    this.offs.push(
      this.bus.subscribe(
        'render.completed',
        (e) => this.duration.observe(e.payload.durationMs / 1000),
        name,
      ),
      this.bus.subscribeState('render.validated', (e) => this.validated(e.payload), name),
    );
  }

  onModuleDestroy(): void {
    for (const off of this.offs.splice(0)) off();
  }

  private validated(r: ValidatedRender): void {
    for (const [output, n] of Object.entries(outputBytes(r.outputs)))
      this.configBytes.set({ output }, n);
    this.expiry.reset(); // certificates no longer rendered lose their series
    for (const [certificate, at] of certificateExpiries(r.outputs.sslCertificates))
      this.expiry.set({ certificate }, at);
  }
}

/** The metrics RenderModule declares (on the application's registry) and their listener. */
export const renderMetrics = [
  makeHistogramProvider({
    name: RENDER_DURATION,
    help: 'Time to render one snapshot (all outputs), successful renders only.',
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
  }),
  makeGaugeProvider({
    name: CONFIG_BYTES,
    help: 'Bytes of the newest validated render, per output kind.',
    labelNames: ['output'],
  }),
  makeGaugeProvider({
    name: CERT_EXPIRY,
    help: 'When each rendered certificate expires (Unix time), from the newest validated render.',
    labelNames: ['certificate'],
  }),
  RenderMetrics,
];
