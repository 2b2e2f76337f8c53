import type { ConsoleLogger } from '@nestjs/common';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { EVENT_BUS } from '#bus';
import { parseTemplateConfigText } from '#core';
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
});
