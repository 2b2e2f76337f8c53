export { Stack, type StackOptions, type PodAddress } from './lib/stack.js';
export { send, waitFor, type Probe, type Reply } from './lib/http.js';
export { echoApp, ECHO_POD_PORT, ECHO_SERVICE_PORT } from './lib/echo-app.js';
export { demoExamples, type Examples, type ExampleRoute } from './lib/examples.js';
export {
  CREDENTIALS,
  LOADBALANCER_LABELS,
  CONTROLLER_LABELS,
  type Topology,
} from './lib/topology.js';
export { repoRoot } from './lib/paths.js';
export { assembleLibrary, assembleIngressLibrary } from './lib/library.js';
export { StackError } from './lib/stack.errors.js';
export { claimPodBlock, type PodBlock } from './lib/pod-block.js';
export {
  startDemo,
  describeDemo,
  demoLibrary,
  libraryChartValues,
  releaseIngressClass,
  DEMO_LIBRARIES,
  type Demo,
  type DemoLibrary,
  type DemoState,
} from './lib/demo.js';
export { servedBy, type EchoSeen } from './lib/serving.js';
