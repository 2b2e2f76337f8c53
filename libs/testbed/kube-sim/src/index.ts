export { KubeSim, type KubeSimOptions } from './lib/kube-sim.js';
export { Faults, type FailRule } from './lib/faults.js';
export type { ClientMatch, CutMode, CutRule } from './lib/client-faults.js';
export type { RequestRecord } from './lib/handler.js';
export { generateCertificate, type TlsMaterial } from './lib/tls.js';
export { parseManifests } from './lib/manifests.js';
export { limits } from './lib/validation.js';
export type { KubeObject, ObjectMeta } from './lib/types.js';
export { KubeSimApplyError, KubeSimStartError } from './kube-sim.errors.js';
