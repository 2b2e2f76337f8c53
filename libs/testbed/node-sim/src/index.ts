export {
  NodeSim,
  NODE_SIM_MARKER_ENV,
  defaultHapticCommand,
  type NodeSimOptions,
} from './lib/node-sim.js';
export type { RunningPod } from './lib/kubelet.js';
export {
  DEFAULT_IMAGE_TABLE,
  imageRepository,
  ruleFor,
  type ImageRule,
  type Runner,
} from './lib/image-table.js';
export { AddressPool } from './lib/address-pool.js';
export { markedProcesses } from './lib/process-group.js';
export * from './lib/node-sim.errors.js';
