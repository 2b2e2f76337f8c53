// Import rules of CONVENTIONS.md, run by `npm run arch` (part of `npm test`).
// test/architecture/rules.spec.ts proves each rule reports a fixture that breaks it.
/** Libraries every feature lib may use: the shared kernel and leaf libraries (haproxy-bin picks the HAProxy binary). */
const SHARED = '(core|bus|events|haproxy-config|haproxy-bin)';
/** Test-bed libraries that may reach into any other (test and bench tooling), under libs/testbed/. */
const TOOLING = '(testing|bench|stack|conformance|cli)';
/** Product libraries that may talk to the Kubernetes API directly (and, under libs/testbed/, these). */
const KUBE_CLIENTS = '(watch|leader|status)';
const TESTBED_KUBE_CLIENTS = '(kube-sim|node-sim|testing|bench|stack)';
const TEST_FILE = '(\\.spec\\.ts$|^test/)';
/** A lib's folder: libs/<name>/ (the product) or libs/testbed/<name>/ (the test-bed); $1 is the name. */
const LIB = '^libs/(?:testbed/)?([^/]+)/';
const ANY_LIB_SRC = '^libs/(?:testbed/)?[^/]+/src/';
const ANY_LIB_INDEX = '^libs/(?:testbed/)?[^/]+/src/index\\.ts$';

module.exports = {
  forbidden: [
    {
      name: 'product-never-imports-testbed',
      comment:
        'The product (apps/, libs/ outside libs/testbed/) never imports the test-bed; the test-bed may import the product.',
      severity: 'error',
      from: { path: '^(apps|libs)/', pathNot: ['^libs/testbed/', TEST_FILE] },
      to: { path: '^libs/testbed/' },
    },
    {
      name: 'no-sibling-libs',
      comment:
        'A lib imports only the shared kernel (core, bus, events) and leaf libs, never a sibling feature lib.',
      severity: 'error',
      from: { path: LIB, pathNot: [`^libs/testbed/${TOOLING}/`, TEST_FILE] },
      to: { path: LIB, pathNot: [`^libs/${SHARED}/`, '^libs/(?:testbed/)?$1/'] },
    },
    {
      name: 'pure-lib-folders',
      comment: "Code under a lib's src/lib/ is pure: no Nest, no bus.",
      severity: 'error',
      from: { path: `${LIB}src/lib/`, pathNot: TEST_FILE },
      to: { path: ['node_modules/@nestjs/', '^libs/bus/'], pathNot: '^libs/(?:testbed/)?$1/' },
    },
    {
      name: 'testing-only-in-tests',
      comment: 'libs/testbed/testing is imported by tests (and test-bed tooling) only.',
      severity: 'error',
      from: { pathNot: [TEST_FILE, '^libs/testbed/testing/', `^libs/testbed/${TOOLING}/`] },
      to: { path: '^libs/testbed/testing/' },
    },
    {
      name: 'lib-through-index',
      comment: 'Other code enters a lib only through its src/index.ts.',
      severity: 'error',
      from: { path: '^(apps|libs|test)/', pathNot: LIB },
      to: { path: ANY_LIB_SRC, pathNot: ANY_LIB_INDEX },
    },
    {
      name: 'lib-through-index-from-libs',
      comment: 'A lib enters another lib only through its src/index.ts.',
      severity: 'error',
      from: { path: LIB },
      to: { path: ANY_LIB_SRC, pathNot: [ANY_LIB_INDEX, '^libs/(?:testbed/)?$1/'] },
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
      from: {
        path: '^libs/',
        pathNot: [`^libs/${KUBE_CLIENTS}/`, `^libs/testbed/${TESTBED_KUBE_CLIENTS}/`, TEST_FILE],
      },
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
