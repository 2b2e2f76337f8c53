import { Module } from '@nestjs/common';
import { RenderCounter, rendersObservedMetric } from './render-counter.js';
import { TeamContext } from './team-context.js';

/**
 * An example of extending haptic without forking it: `haptic run --module
 * @haptic-examples/hello-module` (or a path to dist/index.js) composes this module into the
 * controller. It counts renders in its own metric and adds the template variable `team`.
 */
@Module({
  providers: [RenderCounter, TeamContext, rendersObservedMetric],
})
export class HelloModule {}

export default HelloModule;
export { RENDERS_OBSERVED, RenderCounter } from './render-counter.js';
export { TeamContext, type TeamContextValue } from './team-context.js';
