import { ApiError } from './status.js';
import type { KubeObject } from './types.js';

/**
 * Decodes the Kubernetes protobuf envelope ("k8s\0" + runtime.Unknown) for the few kinds kubectl's
 * imperative generators send as protobuf (create namespace, configmap, secret, serviceaccount).
 * Every other kind gets a 415 saying kube-sim speaks JSON.
 */
class Reader {
  private pos = 0;
  constructor(private readonly buf: Buffer) {}

  get done(): boolean {
    return this.pos >= this.buf.length;
  }

  varint(): number {
    let result = 0;
    let shift = 0;
    for (;;) {
      const b = this.buf[this.pos++];
      if (b === undefined) throw new Error('truncated varint');
      result += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) return result;
      shift += 7;
    }
  }

  /** Next field: number, wire type and its value (a Buffer for length-delimited, a number for varints). */
  field(): { no: number; value: Buffer | number } {
    const tag = this.varint();
    const wire = tag & 7;
    const no = Math.floor(tag / 8);
    if (wire === 0) return { no, value: this.varint() };
    if (wire === 2) {
      const len = this.varint();
      const value = this.buf.subarray(this.pos, this.pos + len);
      this.pos += len;
      return { no, value };
    }
    if (wire === 1 || wire === 5) {
      const n = wire === 1 ? 8 : 4;
      this.pos += n;
      return { no, value: 0 };
    }
    throw new Error(`unsupported wire type ${wire}`);
  }
}

function fields(buf: Buffer): { no: number; value: Buffer | number }[] {
  const r = new Reader(buf);
  const out: { no: number; value: Buffer | number }[] = [];
  while (!r.done) out.push(r.field());
  return out;
}

const text = (v: Buffer | number) => (typeof v === 'number' ? String(v) : v.toString('utf8'));

function mapEntry(v: Buffer | number, bytes: boolean): [string, string] {
  let key = '';
  let value = '';
  for (const f of fields(v as Buffer)) {
    if (f.no === 1) key = text(f.value);
    if (f.no === 2) value = bytes ? (f.value as Buffer).toString('base64') : text(f.value);
  }
  return [key, value];
}

function objectMeta(buf: Buffer): Record<string, unknown> {
  const meta: Record<string, unknown> = {};
  const labels: Record<string, string> = {};
  const annotations: Record<string, string> = {};
  const finalizers: string[] = [];
  const names: Record<number, string> = {
    1: 'name',
    2: 'generateName',
    3: 'namespace',
    5: 'uid',
    6: 'resourceVersion',
  };
  for (const f of fields(buf)) {
    if (names[f.no]) meta[names[f.no]!] = text(f.value);
    else if (f.no === 11) labels[mapEntry(f.value, false)[0]] = mapEntry(f.value, false)[1];
    else if (f.no === 12) annotations[mapEntry(f.value, false)[0]] = mapEntry(f.value, false)[1];
    else if (f.no === 14) finalizers.push(text(f.value));
  }
  if (Object.keys(labels).length) meta.labels = labels;
  if (Object.keys(annotations).length) meta.annotations = annotations;
  if (finalizers.length) meta.finalizers = finalizers;
  return meta;
}

type Decoder = (f: { no: number; value: Buffer | number }, obj: Record<string, unknown>) => void;

function mapInto(
  obj: Record<string, unknown>,
  key: string,
  v: Buffer | number,
  bytes: boolean,
): void {
  const [k, val] = mapEntry(v, bytes);
  obj[key] = { ...(obj[key] as Record<string, string> | undefined), [k]: val };
}

/** Field numbers from Kubernetes' core/v1 generated.proto for the kinds decoded here. */
const decoders: Record<string, Decoder> = {
  Namespace: (f, o) => {
    if (f.no === 2)
      o.spec = {
        finalizers: fields(f.value as Buffer)
          .filter((x) => x.no === 1)
          .map((x) => text(x.value)),
      };
  },
  ConfigMap: (f, o) => {
    if (f.no === 2) mapInto(o, 'data', f.value, false);
    if (f.no === 3) mapInto(o, 'binaryData', f.value, true);
    if (f.no === 4) o.immutable = f.value === 1;
  },
  Secret: (f, o) => {
    if (f.no === 2) mapInto(o, 'data', f.value, true);
    if (f.no === 3) o.type = text(f.value);
    if (f.no === 4) mapInto(o, 'stringData', f.value, false);
    if (f.no === 5) o.immutable = f.value === 1;
  },
  ServiceAccount: (f, o) => {
    if (f.no === 3)
      o.imagePullSecrets = [
        ...((o.imagePullSecrets as unknown[]) ?? []),
        { name: text(fields(f.value as Buffer)[0]?.value ?? 0) },
      ];
    if (f.no === 4) o.automountServiceAccountToken = f.value === 1;
  },
};

/** Decodes a protobuf request body into a JSON object, or throws the 415 a JSON-only server gives. */
export function decodeProtobuf(raw: Buffer): KubeObject {
  const refuse = (what: string) =>
    new ApiError(
      415,
      'UnsupportedMediaType',
      `kube-sim speaks JSON only: protobuf request bodies are decoded for Namespace, ConfigMap, Secret and ServiceAccount, not for ${what}`,
    );
  if (raw.subarray(0, 4).toString('latin1') !== 'k8s\0')
    throw refuse('a body without the k8s protobuf envelope');
  let apiVersion = '';
  let kind = '';
  let body: Buffer = Buffer.alloc(0);
  for (const f of fields(raw.subarray(4))) {
    if (f.no === 1) {
      for (const t of fields(f.value as Buffer)) {
        if (t.no === 1) apiVersion = text(t.value);
        if (t.no === 2) kind = text(t.value);
      }
    }
    if (f.no === 2) body = f.value as Buffer;
  }
  const decode = apiVersion === 'v1' ? decoders[kind] : undefined;
  if (!decode) throw refuse(`${kind || 'this kind'} (${apiVersion || 'unknown version'})`);
  const obj: Record<string, unknown> = { apiVersion, kind, metadata: {} };
  for (const f of fields(body)) {
    if (f.no === 1) obj.metadata = objectMeta(f.value as Buffer);
    else decode(f, obj);
  }
  return obj as KubeObject;
}
