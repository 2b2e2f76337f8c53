import { Module } from '@nestjs/common';
import { RenderService } from './render.service.js';

/** RenderModule: compiles templates per config version and renders index snapshots. */
@Module({
  providers: [RenderService],
  exports: [RenderService],
})
export class RenderModule {}
