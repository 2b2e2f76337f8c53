// ESLint plugin `haptic-tests`: a committed test runs in full.
// - `.only` on describe/it/test/suite (any chain: `it.only.each`, `describe.concurrent.only`) is
//   always an error: it silently drops every other test of the file.
// - `.skip` / `.skipIf` / `.todo` need a tracked reason in a comment on the line just above the
//   statement: `// skip-reason: <why>` naming its issue (`#12`) or the environment switch that
//   causes it on purpose (`HAPTIC_...`), e.g. the HAProxy matrix narrowed by HAPTIC_HAPROXY_MAJORS.
const TEST_FUNCTIONS = new Set(['describe', 'it', 'test', 'suite']);
const SKIPS = new Set(['skip', 'skipIf', 'todo']);
const TRACKED = /skip-reason:.*(#\d+|HAPTIC_[A-Z0-9_]+)/;

/** The identifier a chain such as `it.only.each(...)` or `describe.concurrent.skip` starts from. */
function chainRoot(node) {
  let current = node;
  for (;;) {
    if (current.type === 'MemberExpression') current = current.object;
    else if (current.type === 'CallExpression') current = current.callee;
    else return current.type === 'Identifier' ? current.name : undefined;
  }
}

function enclosingStatement(node) {
  let current = node;
  while (current.parent && !/Statement|Declaration$/.test(current.type)) current = current.parent;
  return current;
}

const noFocusedOrUntrackedSkip = {
  meta: {
    type: 'problem',
    docs: { description: 'refuses .only, and .skip/.skipIf/.todo without a tracked reason' },
    messages: {
      only: '`.{{name}}` must not be committed: it silently drops every other test of the file.',
      skip: '`.{{name}}` needs a tracked reason on the line above: `// skip-reason: <why> (#issue or HAPTIC_* switch)`.',
    },
    schema: [],
  },
  create(context) {
    const source = context.sourceCode;
    return {
      MemberExpression(node) {
        if (node.property.type !== 'Identifier' || node.computed) return;
        const name = node.property.name;
        if (name !== 'only' && !SKIPS.has(name)) return;
        if (!TEST_FUNCTIONS.has(chainRoot(node.object))) return;
        if (name === 'only') {
          context.report({ node: node.property, messageId: 'only', data: { name } });
          return;
        }
        const statement = enclosingStatement(node);
        const comments = source.getCommentsBefore(statement);
        const last = comments[comments.length - 1];
        const adjacent = last && last.loc.end.line >= statement.loc.start.line - 1;
        if (!adjacent || !TRACKED.test(last.value))
          context.report({ node: node.property, messageId: 'skip', data: { name } });
      },
    };
  },
};

export default { rules: { 'no-focused-or-untracked-skip': noFocusedOrUntrackedSkip } };
