import { Module, type DynamicModule } from '@nestjs/common';
import { ValidationListener } from './validation.listener.js';
import { validationMetrics } from './validation.metrics.js';
import {
  VALIDATION_OPTIONS,
  ValidationService,
  type ValidationOptions,
} from './validation.service.js';

/**
 * ValidationModule: structural checks and sandboxed `haproxy -c` of rendered configurations;
 * takes render.rendered from the bus and sets render.validated. Needs the BusModule (global).
 */
@Module({})
export class ValidationModule {
  /** The module with the HAProxy binary and checker limits this process uses. */
  static forRoot(options: ValidationOptions): DynamicModule {
    return {
      module: ValidationModule,
      providers: [
        { provide: VALIDATION_OPTIONS, useValue: options },
        ValidationService,
        ValidationListener,
        ...validationMetrics,
      ],
      exports: [ValidationService],
    };
  }
}
