#!/usr/bin/env node
// Assembles a template library kept as files (helm/haptic/libraries/<name>/) into one
// HAProxyTemplateConfig YAML and checks it against a size budget.
//
//   node scripts/assemble-library.mjs [--library DIR] [--out FILE] [--budget BYTES]
//                                     [--without-tests] [--check]
//
// Layout of a library folder:
//   library.yaml          the resource without templates (metadata, watched resources, extraContext)
//   haproxy.cfg.liquid    spec.haproxyConfig.template
//   snippets/N.liquid     spec.templateSnippets.N
//   maps/F.liquid         spec.maps.F          files/F.liquid  spec.files.F
//   certificates/F.liquid spec.sslCertificates.F
//   tests/*.yaml          each a map of validation tests, merged into spec.validationTests
// A Kubernetes API server stores objects up to about 1.5 MiB; the default budget keeps the
// assembled resource well under that (and says when `kubectl apply` without --server-side would
// refuse it: its last-applied annotation is limited to 256 KiB).
import { Buffer } from 'node:buffer';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, stringify } from 'yaml';

const root = fileURLToPath(new URL('..', import.meta.url));
const KIB = 1024;
const CLIENT_SIDE_APPLY_LIMIT = 256 * KIB;

function parseArgs(argv) {
  const opts = {
    library: join(root, 'helm/haptic/libraries/ingress'),
    out: undefined,
    budget: 512 * KIB,
    withTests: true,
    check: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value`);
      return v;
    };
    if (a === '--library') opts.library = value();
    else if (a === '--out') opts.out = value();
    else if (a === '--budget') opts.budget = Number(value());
    else if (a === '--without-tests') opts.withTests = false;
    else if (a === '--check') opts.check = true;
    else if (a === '--help' || a === '-h') opts.help = true;
    else throw new Error(`unknown argument ${a}`);
  }
  if (!Number.isInteger(opts.budget) || opts.budget <= 0) throw new Error('--budget must be bytes');
  return opts;
}

/** Files of a sub-folder as [name without `ext`, text], in name order. */
function readFolder(dir, ext) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith(ext))
    .sort()
    .map((f) => [basename(f, ext), readFileSync(join(dir, f), 'utf8')]);
}

function templates(dir) {
  return Object.fromEntries(readFolder(dir, '.liquid').map(([n, t]) => [n, { template: t }]));
}

function tests(dir) {
  const all = {};
  for (const [file, text] of readFolder(dir, '.yaml')) {
    const record = parse(text) ?? {};
    for (const [name, test] of Object.entries(record)) {
      if (Object.hasOwn(all, name))
        throw new Error(`validation test ${name} is defined twice (${file}.yaml)`);
      all[name] = test;
    }
  }
  return all;
}

/** The assembled resource as an object. */
export function assemble(library, { withTests = true } = {}) {
  const base = parse(readFileSync(join(library, 'library.yaml'), 'utf8'));
  const spec = base.spec ?? {};
  spec.haproxyConfig = { template: readFileSync(join(library, 'haproxy.cfg.liquid'), 'utf8') };
  spec.templateSnippets = templates(join(library, 'snippets'));
  spec.maps = templates(join(library, 'maps'));
  spec.files = templates(join(library, 'files'));
  spec.sslCertificates = templates(join(library, 'certificates'));
  if (withTests) spec.validationTests = tests(join(library, 'tests'));
  return { ...base, spec };
}

/** YAML text of the assembled resource, multi-line templates as literal blocks. */
export function toYaml(resource) {
  return stringify(resource, { lineWidth: 0, blockQuote: 'literal' });
}

async function checkConfig(text) {
  const core = join(root, 'dist/libs/core/src/index.js');
  if (!existsSync(core)) throw new Error('--check needs `npm run build` first');
  const { parseTemplateConfigText } = await import(core);
  const result = parseTemplateConfigText(text);
  if (!result.ok) {
    for (const p of result.problems) console.error(`  ${p.path}: ${p.reason}`);
    throw new Error('the assembled config is not a valid HAProxyTemplateConfig');
  }
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  if (opts.help) {
    console.log(
      readFileSync(fileURLToPath(import.meta.url), 'utf8')
        .split('\n')
        .slice(1, 18)
        .join('\n'),
    );
    return;
  }
  const resource = assemble(opts.library, { withTests: opts.withTests });
  const text = toYaml(resource);
  const bytes = Buffer.byteLength(text);
  const s = resource.spec;
  const count = (r) => Object.keys(r ?? {}).length;
  console.error(
    `${resource.metadata?.name}: ${bytes} bytes (${(bytes / KIB).toFixed(1)} KiB of a ${(opts.budget / KIB).toFixed(0)} KiB budget); ` +
      `${count(s.templateSnippets)} snippets, ${count(s.maps)} maps, ${count(s.files)} files, ${count(s.validationTests)} validation tests`,
  );
  if (bytes > CLIENT_SIDE_APPLY_LIMIT) {
    console.error('note: over 256 KiB; apply it with Helm or `kubectl apply --server-side`');
  }
  if (bytes > opts.budget) {
    console.error(
      `over budget by ${bytes - opts.budget} bytes: assemble --without-tests for the deployed copy, or split the library`,
    );
    process.exitCode = 1;
    return;
  }
  if (opts.check) await checkConfig(text);
  if (opts.out) writeFileSync(opts.out, text);
  else process.stdout.write(text);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((e) => {
    console.error(`assemble-library: ${e.message}`);
    process.exitCode = 2;
  });
}
