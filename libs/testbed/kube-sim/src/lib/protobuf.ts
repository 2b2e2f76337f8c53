import table from './protobuf-fields.json' with { type: 'json' };
import { ApiError, errors } from './status.js';
import type { KubeObject } from './types.js';

/**
 * Decodes Kubernetes protobuf request bodies ("k8s\0" + runtime.Unknown) generically from one table
 * of field numbers per message type (protobuf-fields.json, generated from the public
 * generated.proto files by scripts/gen-kube-sim-protobuf.mjs). An unknown field number is a 400.
 */
interface Table {
  kinds: Record<string, string>;
  types: Record<string, Record<string, [string, string, '' | 'repeated' | 'map' | 'inline']>>;
}
const data = table as unknown as Table;

const meta = 'k8s.io.apimachinery.pkg.apis.meta.v1.';

type Field = { no: number; wire: number; value: Buffer | bigint };

class Reader {
  private pos = 0;
  constructor(private readonly buf: Buffer) {}

  get done(): boolean {
    return this.pos >= this.buf.length;
  }

  varint(): bigint {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      const b = this.buf[this.pos++];
      if (b === undefined) throw errors.badRequest('protobuf body truncated (varint)');
      result |= BigInt(b & 0x7f) << shift;
      if (b < 0x80) return result;
      shift += 7n;
    }
  }

  field(): Field {
    const tag = Number(this.varint());
    const wire = tag & 7;
    const no = tag >>> 3;
    if (wire === 0) return { no, wire, value: this.varint() };
    const len = wire === 2 ? Number(this.varint()) : wire === 1 ? 8 : wire === 5 ? 4 : -1;
    if (len < 0) throw errors.badRequest(`protobuf wire type ${wire} is not supported`);
    if (this.pos + len > this.buf.length) throw errors.badRequest('protobuf body truncated');
    const value = this.buf.subarray(this.pos, this.pos + len);
    this.pos += len;
    return { no, wire, value };
  }
}

function fields(buf: Buffer): Field[] {
  const r = new Reader(buf);
  const out: Field[] = [];
  while (!r.done) out.push(r.field());
  return out;
}

const bytesOf = (f: Field) => (Buffer.isBuffer(f.value) ? f.value : Buffer.alloc(0));
const int = (v: bigint) => Number(BigInt.asIntN(64, v));

/** One scalar value (packed repeated scalars yield several). */
function scalars(type: string, f: Field): unknown[] {
  switch (type) {
    case 'string':
      return [bytesOf(f).toString('utf8')];
    case 'bytes':
      return [bytesOf(f).toString('base64')];
    case 'double':
      return [bytesOf(f).readDoubleLE(0)];
    case 'float':
      return [bytesOf(f).readFloatLE(0)];
    case 'bool':
    case 'int32':
    case 'int64':
    case 'uint32':
    case 'uint64': {
      const vs = typeof f.value === 'bigint' ? [f.value] : packed(f.value);
      return vs.map((v) => (type === 'bool' ? v !== 0n : int(v)));
    }
    default:
      throw errors.badRequest(`protobuf field type ${type} is not supported`);
  }
}

function packed(buf: Buffer): bigint[] {
  const r = new Reader(buf);
  const out: bigint[] = [];
  while (!r.done) out.push(r.varint());
  return out;
}

/** Go's time.Duration string (what metav1.Duration serialises to), e.g. "1h2m3s". */
function duration(ns: number): string {
  if (ns === 0) return '0s';
  let s = ns / 1e9;
  const h = Math.floor(s / 3600);
  s -= h * 3600;
  const m = Math.floor(s / 60);
  s -= m * 60;
  return `${h ? `${h}h` : ''}${h || m ? `${m}m` : ''}${Number(s.toFixed(9))}s`;
}

/** Messages whose JSON form is not an object (times, quantities, int-or-string, raw JSON). */
function special(type: string, buf: Buffer): { value: unknown } | undefined {
  const fs = () => new Map(fields(buf).map((f) => [f.no, f] as const));
  const num = (f: Field | undefined) => (f && typeof f.value === 'bigint' ? int(f.value) : 0);
  const str = (f: Field | undefined) => (f ? bytesOf(f).toString('utf8') : '');
  switch (type) {
    case `${meta}Time`:
    case `${meta}MicroTime`: {
      const m = fs();
      const ms = num(m.get(1)) * 1000 + Math.floor(num(m.get(2)) / 1e6);
      const iso = new Date(ms).toISOString();
      return {
        value: type.endsWith('MicroTime')
          ? iso.replace('Z', '000Z')
          : iso.replace(/\.\d{3}Z$/, 'Z'),
      };
    }
    case `${meta}Duration`:
      return { value: duration(num(fs().get(1))) };
    case `${meta}FieldsV1`:
    case 'k8s.io.apimachinery.pkg.runtime.RawExtension': {
      const raw = fs().get(1);
      return { value: raw ? (JSON.parse(bytesOf(raw).toString('utf8')) as unknown) : {} };
    }
    case 'k8s.io.apimachinery.pkg.api.resource.Quantity':
      return { value: str(fs().get(1)) };
    case 'k8s.io.apimachinery.pkg.util.intstr.IntOrString': {
      const m = fs();
      return { value: num(m.get(1)) === 1 ? str(m.get(3)) : num(m.get(2)) };
    }
    default:
      return undefined;
  }
}

function value(type: string, f: Field): unknown[] {
  if (!data.types[type]) {
    const sp = special(type, bytesOf(f));
    return sp ? [sp.value] : scalars(type, f);
  }
  return [message(type, bytesOf(f))];
}

/** Decodes one message of a type from the table; unknown field numbers are refused. */
export function message(type: string, buf: Buffer): Record<string, unknown> {
  const layout = data.types[type];
  if (!layout) throw errors.badRequest(`protobuf message ${type} is not known to kube-sim`);
  const out: Record<string, unknown> = {};
  for (const f of fields(buf)) {
    const def = layout[String(f.no)];
    if (!def)
      throw errors.badRequest(
        `unknown field number ${f.no} in protobuf message ${type.split('.').pop()!}`,
      );
    const [name, ftype, label] = def;
    if (label === 'map') {
      let k = '';
      let v: unknown = ftype === 'string' ? '' : undefined;
      for (const e of fields(bytesOf(f))) {
        if (e.no === 1) k = bytesOf(e).toString('utf8');
        else if (e.no === 2) v = value(ftype, e)[0];
      }
      out[name] = { ...(out[name] as Record<string, unknown> | undefined), [k]: v ?? {} };
    } else if (label === 'inline') {
      Object.assign(out, message(ftype, bytesOf(f)));
    } else if (label === 'repeated') {
      out[name] = [...((out[name] as unknown[] | undefined) ?? []), ...value(ftype, f)];
    } else {
      const v = value(ftype, f)[0];
      // Go writes every non-pointer string, "" included; its JSON form omits them.
      if (v === '' && ftype === 'string') continue;
      // A zero metav1.Time is JSON null (absent).
      if (v === '1970-01-01T00:00:00Z' && ftype === `${meta}Time`) continue;
      out[name] = v;
    }
  }
  return out;
}

/** Decodes a protobuf request body into a JSON object. */
export function decodeProtobuf(raw: Buffer): KubeObject {
  if (raw.subarray(0, 4).toString('latin1') !== 'k8s\0')
    throw new ApiError(
      415,
      'UnsupportedMediaType',
      'a protobuf body must start with the k8s protobuf envelope ("k8s\\0" + runtime.Unknown)',
    );
  let apiVersion = '';
  let kind = '';
  let body: Buffer = Buffer.alloc(0);
  for (const f of fields(raw.subarray(4))) {
    if (f.no === 1)
      for (const t of fields(bytesOf(f))) {
        if (t.no === 1) apiVersion = bytesOf(t).toString('utf8');
        if (t.no === 2) kind = bytesOf(t).toString('utf8');
      }
    if (f.no === 2) body = bytesOf(f);
  }
  const type = data.kinds[`${apiVersion}/${kind}`];
  if (!type)
    throw new ApiError(
      415,
      'UnsupportedMediaType',
      `kube-sim decodes protobuf bodies for ${Object.keys(data.kinds).join(', ')}; not for ${kind || 'this kind'} (${apiVersion || 'unknown version'}): send JSON`,
    );
  return { apiVersion, kind, metadata: {}, ...message(type, body) };
}

/** The protobuf table: apiVersion/kind → message, message → field number → [name, type, label]. */
export const protobufTable: Readonly<Table> = data;
