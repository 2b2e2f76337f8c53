import type { ConsoleLogger } from '@nestjs/common';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { EVENT_BUS } from '#bus';
import { parseTemplateConfigText } from '#core';
import { ReconcileModule } from '#reconcile';
import type { HapticBus } from '#events';
import {
  startController,
  type RunningController,
} from '../../../apps/controller/src/run/controller-app.js';
import { APP_LOGGER } from '../../../apps/controller/src/run/log-level.js';
import { resolveRunOptions } from '../../../apps/controller/src/run/run-options.js';

const config = (level: string) => {
  const r = parseTemplateConfigText(`
credentialsSecretRef: { name: c }
podSelector: { matchLabels: { app: haproxy } }
logging: { level: ${level} }
watchedResources:
  ingresses: { apiVersion: networking.k8s.io/v1, resources: ingresses, indexBy: [metadata.name] }
haproxyConfig: { template: "global\\n" }`);
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.config;
};

const flags = { address: '127.0.0.1', healthPort: '0', metricsPort: '0' };

describe('log level and format', () => {
  let c: RunningController | undefined;
  afterEach(async () => {
    await c?.stop();
    c = undefined;
    vi.restoreAllMocks();
  });

  it('follows spec.logging.level when no flag or LOG_LEVEL fixed it, and logs JSON lines', async () => {
    const lines: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      lines.push(String(chunk));
      return true;
    });
    c = await startController(resolveRunOptions(flags, {}));
    const logger = c.app.get<ConsoleLogger>(APP_LOGGER);
    expect(logger.isLevelEnabled('debug')).toBe(false);
    c.app.get<HapticBus>(EVENT_BUS).setState('config.current', config('debug'));
    await c.app.get<HapticBus>(EVENT_BUS).idle();
    expect(logger.isLevelEnabled('debug')).toBe(true);
    const started = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(started).toContainEqual(
      expect.objectContaining({ level: 'log', context: 'NestApplication' }),
    );
    expect(started).toContainEqual(
      expect.objectContaining({ message: 'log level debug (spec.logging.level)' }),
    );
  });

  it('keeps the level LOG_LEVEL fixed, whatever the config says', async () => {
    const options = resolveRunOptions(flags, { LOG_LEVEL: 'error' });
    expect(options).toMatchObject({ logLevel: 'error', logLevelFixed: true });
    c = await startController(options);
    c.app.get<HapticBus>(EVENT_BUS).setState('config.current', config('debug'));
    await c.app.get<HapticBus>(EVENT_BUS).idle();
    expect(c.app.get<ConsoleLogger>(APP_LOGGER).isLevelEnabled('log')).toBe(false);
  });

  it('logs one JSON line per reconcile outcome, with the correlation id of its trigger', async () => {
    const lines: string[] = [];
    const capture = (chunk: unknown) => {
      lines.push(String(chunk));
      return true;
    };
    vi.spyOn(process.stdout, 'write').mockImplementation(capture);
    vi.spyOn(process.stderr, 'write').mockImplementation(capture);
    c = await startController(resolveRunOptions({ ...flags, logLevel: 'info' }, {}), [
      ReconcileModule,
    ]);
    const bus = c.app.get<HapticBus>(EVENT_BUS);
    const trigger = await bus.publish('reconcile.triggered', { reason: 'test', coalesced: 0 });
    const caused = { cause: trigger };
    await bus.publish('validation.completed', { hash: 'h1', durationMs: 1 }, caused);
    await bus.publish(
      'deploy.completed',
      { pod: 'haptic/haproxy-0', hash: 'h1', reloaded: false, runtimeOperations: 2, durationMs: 3 },
      caused,
    );
    await bus.publish(
      'deploy.failed',
      { pod: 'haptic/haproxy-1', hash: 'h1', reason: 'x' },
      caused,
    );
    await bus.publish('render.failed', { reason: 'templates do not compile: y' });
    await bus.idle();
    const outcomes = lines
      .flatMap((l) => l.split('\n').filter((x) => x.trim() !== ''))
      .map((l) => JSON.parse(l) as { level: string; context?: string; message: unknown })
      .filter((l) => l.context === 'Reconcile');
    expect(outcomes).toEqual([
      {
        level: 'log',
        context: 'Reconcile',
        pid: expect.any(Number),
        timestamp: expect.any(Number),
        message: { outcome: 'valid', correlationId: trigger.correlationId, hash: 'h1' },
      },
      expect.objectContaining({
        level: 'log',
        message: {
          outcome: 'deployed',
          correlationId: trigger.correlationId,
          pod: 'haptic/haproxy-0',
          hash: 'h1',
          reloaded: false,
          runtimeOperations: 2,
        },
      }),
      expect.objectContaining({
        level: 'warn',
        message: expect.objectContaining({
          outcome: 'deploy-failed',
          correlationId: trigger.correlationId,
          reason: 'x',
        }),
      }),
      expect.objectContaining({
        level: 'warn',
        message: expect.objectContaining({
          outcome: 'render-failed',
          correlationId: expect.not.stringMatching(trigger.correlationId),
        }),
      }),
    ]);
  });
});
