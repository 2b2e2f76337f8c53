export { runSuite, SUITE_NAMES } from './lib/run.js';
export { formatReport, ReportBuilder, type CaseReport, type SuiteReport } from './lib/report.js';
export * as checks from './lib/checks.js';
