import {
  ConsoleLogger,
  Inject,
  Injectable,
  type LogLevel,
  type OnModuleDestroy,
  type OnModuleInit,
} from '@nestjs/common';
import { EVENT_BUS } from '#bus';
import type { HapticBus } from '#events';
import type { RunOptions } from './run-options.js';

/** Nest log levels enabled at each haptic level. */
export const LEVELS: Record<RunOptions['logLevel'], LogLevel[]> = {
  debug: ['debug', 'log', 'warn', 'error', 'fatal'],
  info: ['log', 'warn', 'error', 'fatal'],
  warn: ['warn', 'error', 'fatal'],
  error: ['error', 'fatal'],
};

/** The process logger: one JSON object per line, with level, time, pid and context. */
export function jsonLogger(level: RunOptions['logLevel']): ConsoleLogger {
  return new ConsoleLogger({ json: true, logLevels: LEVELS[level] });
}

/** DI tokens: the process logger and the run options. */
export const APP_LOGGER = Symbol.for('haptic.AppLogger');
export const RUN_OPTIONS = Symbol.for('haptic.RunOptions');

/**
 * Follows spec.logging.level of the config in force, unless a flag or LOG_LEVEL /
 * HAPTIC_LOG_LEVEL fixed the level for this process.
 */
@Injectable()
export class LogLevelFollower implements OnModuleInit, OnModuleDestroy {
  private off: (() => void) | undefined;

  constructor(
    @Inject(EVENT_BUS) private readonly bus: HapticBus,
    @Inject(APP_LOGGER) private readonly logger: ConsoleLogger,
    @Inject(RUN_OPTIONS) private readonly options: RunOptions,
  ) {}

  onModuleInit(): void {
    if (this.options.logLevelFixed) return;
    let current: string = this.options.logLevel;
    this.off = this.bus.subscribeState(
      'config.current',
      (e) => {
        const level = e.payload.spec.logging.level;
        if (level === current) return;
        current = level;
        this.logger.setLogLevels(LEVELS[level]);
        this.logger.log(`log level ${level} (spec.logging.level)`, 'haptic');
      },
      { name: 'log-level' },
    );
  }

  onModuleDestroy(): void {
    this.off?.();
  }
}
