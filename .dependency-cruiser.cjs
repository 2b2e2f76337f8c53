// Import rules of CONVENTIONS.md, run by `npm run arch` (part of `npm test`).
// test/architecture/rules.spec.ts proves each rule reports a fixture that breaks it.
/** Libraries every feature lib may use: the shared kernel and leaf libraries (haproxy-bin picks the HAProxy binary). */
const SHARED = '(core|bus|events|haproxy-config|haproxy-bin)';
/** Libraries that may reach into any other (test and bench tooling). */
const TOOLING = '(testing|bench|stack|conformance)';
/** Libraries that may talk to the Kubernetes API directly. */
const KUBE_CLIENTS = '(watch|leader|status|kube-sim|node-sim|testing|bench|stack)';
const TEST_FILE = '(\\.spec\\.ts$|^test/)';

module.exports = {
  forbidden: [
    {
      name: 'no-sibling-libs',
      comment:
        'A lib imports only the shared kernel (core, bus, events) and leaf libs, never a sibling feature lib.',
      severity: 'error',
      from: { path: '^libs/([^/]+)/', pathNot: [`^libs/${TOOLING}/`, TEST_FILE] },
      to: { path: '^libs/([^/]+)/', pathNot: [`^libs/${SHARED}/`, '^libs/$1/'] },
    },
    {
      name: 'pure-lib-folders',
      comment: "Code under a lib's src/lib/ is pure: no Nest, no bus.",
      severity: 'error',
      from: { path: '^libs/([^/]+)/src/lib/', pathNot: TEST_FILE },
      to: { path: ['node_modules/@nestjs/', '^libs/bus/'], pathNot: '^libs/$1/' },
    },
    {
      name: 'testing-only-in-tests',
      comment: 'libs/testing is imported by tests only.',
      severity: 'error',
      from: { pathNot: [TEST_FILE, '^libs/testing/', `^libs/${TOOLING}/`] },
      to: { path: '^libs/testing/' },
    },
    {
      name: 'lib-through-index',
      comment: 'Other code enters a lib only through its src/index.ts.',
      severity: 'error',
      from: { path: '^(apps|libs|test)/', pathNot: '^libs/([^/]+)/' },
      to: { path: '^libs/[^/]+/src/', pathNot: '^libs/[^/]+/src/index\\.ts$' },
    },
    {
      name: 'lib-through-index-from-libs',
      comment: 'A lib enters another lib only through its src/index.ts.',
      severity: 'error',
      from: { path: '^libs/([^/]+)/' },
      to: { path: '^libs/[^/]+/src/', pathNot: ['^libs/[^/]+/src/index\\.ts$', '^libs/$1/'] },
    },
    {
      name: 'app-through-index',
      comment: 'An app enters another app only through its src/index.ts.',
      severity: 'error',
      from: { path: '^apps/([^/]+)/' },
      to: { path: '^apps/', pathNot: ['^apps/$1/', '^apps/[^/]+/src/index\\.ts$'] },
    },
    {
      name: 'kube-client-only-where-allowed',
      comment: 'Only watch, leader and status (and the test-bed) use @kubernetes/client-node.',
      severity: 'error',
      from: { path: '^libs/', pathNot: [`^libs/${KUBE_CLIENTS}/`, TEST_FILE] },
      to: { path: 'node_modules/@kubernetes/client-node/' },
    },
    {
      name: 'no-circular',
      comment:
        'No import cycles, type-only ones included: a shared type lives in the module both sides need.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^dist/|^node_modules/|^test/architecture/fixtures/)' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js', '.mjs', '.cjs', '.d.ts'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
