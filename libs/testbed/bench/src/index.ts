export { type Figure, median, formatFigures, rounded } from './lib/figures.js';
export {
  ingressWorld,
  ingressAt,
  type IngressWorld,
  type TlsPair,
  type WorldOptions,
} from './lib/manifests.js';
export { loadIngressLibrary } from './lib/ingress-library.js';
export { renderScenario, type RenderScenarioOptions } from './lib/render-scenario.js';
export { offlineRenderScenario, type OfflineRenderOptions } from './lib/offline-render-scenario.js';
export {
  webhookScenario,
  percentile,
  type WebhookScenarioOptions,
  type ReviewSamples,
} from './lib/webhook-scenario.js';
export { memoryScenario, type MemoryScenarioOptions } from './lib/memory-scenario.js';
export {
  processMemory,
  checkPeaks,
  writeCheckWrapper,
  metricValue,
  type ProcessMemory,
} from './lib/memory-probe.js';
export { takeHeapSnapshot } from './lib/heap-snapshot.js';
export {
  heapBreakdown,
  heapBreakdownOf,
  HEAP_OWNERS,
  type HeapShare,
} from './lib/heap-breakdown.js';
export {
  runBench,
  formatBench,
  roundedResult,
  SCENARIOS,
  SIZES,
  PLANS,
  type ScenarioName,
  type SizeName,
  type SizePlan,
  type BenchOptions,
  type BenchResult,
  type ScenarioResult,
} from './lib/bench.js';
export { type Measure, type Unit, isFinite as isFiniteMeasure } from './lib/measures.js';
export { chartSettings, type ChartSettings } from './lib/chart.js';
export { TerminalProgress, silent, type Progress } from './lib/progress.js';
export { LATENCY_STAGES } from './lib/change-stages.js';
