import { Module, type DynamicModule } from '@nestjs/common';
import { ScheduleModule } from '@nestjs/schedule';
import {
  DATAPLANE_OPTIONS,
  DataplaneListener,
  type DataplaneModuleOptions,
} from './dataplane.listener.js';
import { dataplaneMetrics } from './dataplane.metrics.js';

/** DataplaneModule: deploys validated renders to every discovered HAProxy pod. Needs BusModule. */
@Module({})
export class DataplaneModule {
  static forRoot(options: DataplaneModuleOptions): DynamicModule {
    return {
      module: DataplaneModule,
      // the drift check is an interval of @nestjs/schedule (registered per config, named)
      imports: [ScheduleModule.forRoot()],
      providers: [
        { provide: DATAPLANE_OPTIONS, useValue: options },
        DataplaneListener,
        ...dataplaneMetrics,
      ],
      exports: [DataplaneListener],
    };
  }
}
