import { Module } from '@nestjs/common';
import { ValidationService } from './validation.service.js';

/** ValidationModule: structural checks and sandboxed `haproxy -c` of rendered configurations. */
@Module({
  providers: [ValidationService],
  exports: [ValidationService],
})
export class ValidationModule {}
