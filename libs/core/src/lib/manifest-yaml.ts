// The bulk manifest parser: js-yaml, because the `yaml` package's document model costs about
// ten times as much CPU and memory on a 12 MB dump (the `yaml` package stays for config files,
// where its error positions and round-tripping matter and sizes are small).
import { CORE_SCHEMA, YAMLException, loadAll } from 'js-yaml';
import { InputUnreadableError } from './errors.js';

/**
 * The YAML 1.2 core schema, as the `yaml` package reads manifests by default: `yes`, `on`, `y`
 * stay strings, `0755` is 755 (1.2 has no leading-zero octal; `0o755` is octal), timestamps stay
 * strings, `<<` is an ordinary key. Where js-yaml differs (`0b101` is 5, a float beyond double
 * range such as `1e400` stays a string, `!!binary`/`!!set`/`!!omap` are unknown tags) the unit
 * test pins it.
 */
const SCHEMA = CORE_SCHEMA;

/**
 * Every document of a (multi-document) YAML text, empty documents (null) left out. A document
 * that is not valid YAML throws an InputUnreadableError naming `source`, the document's number
 * (1-based) and its line and column in the text.
 */
export function parseYamlDocuments(text: string, source: string): unknown[] {
  const docs: unknown[] = [];
  try {
    loadAll(
      text,
      (doc) => {
        if (doc !== null && doc !== undefined) docs.push(doc);
      },
      { schema: SCHEMA },
    );
  } catch (e) {
    if (!(e instanceof YAMLException)) throw e;
    const line = e.mark.line;
    throw new InputUnreadableError(
      `${source}: document ${documentAt(text, line)}: not valid YAML: ${e.reason} (line ${line + 1}, column ${e.mark.column + 1})`,
      { cause: e },
    );
  }
  return docs;
}

const DOCUMENT_START = /^---(?:[ \t]|$)/;
const CONTENT = /^[ \t]*[^\s#%]/;

/**
 * The number (1-based) of the document holding 0-based `line`, counting `---` markers (at column
 * 0 they always start a document: they end a block scalar, and a quoted one may not hold them);
 * content before the first marker is document 1, and an error on a marker line belongs to the
 * document before it. js-yaml parses every document before handing
 * out the first, so the count comes from the text.
 */
function documentAt(text: string, line: number): number {
  let doc = 0;
  let open = false;
  let start = 0;
  for (let i = 0; i <= line && start <= text.length; i++) {
    const end = text.indexOf('\n', start);
    const row = text.slice(start, end < 0 ? text.length : end);
    // an error on a marker line is the previous document left open (a flow collection, say)
    if (DOCUMENT_START.test(row) && i < line) {
      doc++;
      open = true;
    } else if (!open && CONTENT.test(row)) {
      doc++;
      open = true;
    }
    if (end < 0) break;
    start = end + 1;
  }
  return Math.max(doc, 1);
}
