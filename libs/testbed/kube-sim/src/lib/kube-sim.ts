import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer as createHttp, type Server } from 'node:http';
import { createServer as createHttps } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeSimApplyError, KubeSimStartError } from '../kube-sim.errors.js';
import { Admission } from './admission.js';
import type { Scope } from './api-types.js';
import { ServiceAllocator } from './service-alloc.js';
import { Api } from './api.js';
import { Control } from './control.js';
import { Deleter } from './delete.js';
import { Faults } from './faults.js';
import { handle, type RequestRecord } from './handler.js';
import { kubeconfigYaml } from './kubeconfig.js';
import { parseManifests } from './manifests.js';
import { Registry } from './registry.js';
import { ApiError } from './status.js';
import { Store } from './store.js';
import { generateCertificate } from './tls.js';
import type { KubeObject } from './types.js';
import type { OpenWatch } from './watch.js';

/** How to start a simulator. Every field is optional. */
export interface KubeSimOptions {
  /** TCP port on loopback; 0 (default) picks a free one. */
  readonly port?: number;
  /** Address to bind (default 127.0.0.1; only loopback is intended). */
  readonly host?: string;
  /** Serve HTTPS with a generated self-signed certificate (default false). */
  readonly tls?: boolean;
  /** Bearer token required on every request; true generates one (default: true with tls, none without). */
  readonly token?: string | boolean;
  /** Where to write the kubeconfig (default: a new temporary folder). */
  readonly kubeconfigPath?: string;
  /** How many changes watches can replay before 410 Expired (default 10000). */
  readonly historyLimit?: number;
  /** Interval of BOOKMARK events on watches that allow them (default 60000 ms, as a real server's ~1 min). */
  readonly bookmarkIntervalMs?: number;
  /** Manifest files (multi-document YAML) applied at start. */
  readonly manifests?: readonly string[];
  /**
   * Services' cluster IP range (default 10.96.0.0/12, kube-apiserver's). A loopback range such as
   * 127.96.0.0/16 makes cluster IPs addresses node-sim can listen on.
   */
  readonly serviceCidr?: string;
}

const seedNamespaces = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

/** An in-memory Kubernetes API server that kubectl and @kubernetes/client-node use unchanged. */
export class KubeSim {
  readonly faults = new Faults();
  /** Recent requests (method, path, HTTP code), newest last, at most 1000. */
  readonly requests: RequestRecord[] = [];
  private readonly store: Store;
  private readonly registry = new Registry();
  private readonly api: Api;
  private readonly deleter: Deleter;
  private readonly watches = new Set<OpenWatch>();
  /** Accepted bearer tokens (empty: no authentication). */
  private readonly tokens = new Set<string>();
  private clients = 0;
  private readonly clientFiles: string[] = [];
  private server: Server | undefined;
  private tempDir: string | undefined;
  private urlValue = '';
  private kubeconfigPathValue = '';
  private kubeconfigValue = '';

  private constructor(
    private readonly opts: KubeSimOptions,
    readonly token: string | undefined,
    readonly caCertificate: string | undefined,
  ) {
    this.store = new Store(opts.historyLimit ?? 10_000);
    const admission = new Admission(this.store, this.registry);
    const deps = {
      store: this.store,
      registry: this.registry,
      admission: (r: Parameters<Admission['review']>[0]) => admission.review(r),
      now: () => Date.now(),
      services: new ServiceAllocator(opts.serviceCidr),
    };
    this.api = new Api(deps);
    this.deleter = new Deleter(this.api, deps);
    this.faults.closeWatchesHook = () => this.closeWatches();
    this.faults.compactHook = () => this.store.compact();
    this.faults.connectionsHook = () => this.watches;
    if (token !== undefined) this.tokens.add(token);
    this.seed();
  }

  /** Starts a simulator, writes its kubeconfig and applies the given manifests. */
  static async start(opts: KubeSimOptions = {}): Promise<KubeSim> {
    const tls = opts.tls
      ? await generateCertificate({
          dnsNames: ['localhost', 'kube-sim'],
          ipAddresses: ['127.0.0.1'],
        })
      : undefined;
    const tokenOpt = opts.token ?? !!opts.tls;
    const token =
      tokenOpt === true
        ? randomBytes(24).toString('base64url')
        : tokenOpt === false
          ? undefined
          : tokenOpt;
    const sim = new KubeSim(opts, token, tls?.cert);
    await sim.listen(tls);
    try {
      for (const file of opts.manifests ?? []) await sim.applyFile(file);
    } catch (e) {
      await sim.stop();
      throw e;
    }
    return sim;
  }

  /** Base URL, e.g. http://127.0.0.1:41234. */
  get url(): string {
    return this.urlValue;
  }

  /** Path of the written kubeconfig file. */
  get kubeconfigPath(): string {
    return this.kubeconfigPathValue;
  }

  /** The kubeconfig YAML itself. */
  get kubeconfig(): string {
    return this.kubeconfigValue;
  }

  /** The current resourceVersion. */
  get resourceVersion(): string {
    return String(this.store.resourceVersion);
  }

  /** Number of open watch streams. */
  get openWatches(): number {
    return this.watches.size;
  }

  private async listen(tls: { cert: string; key: string } | undefined): Promise<void> {
    const control = new Control(this);
    const handler = (req: Parameters<typeof handle>[1], res: Parameters<typeof handle>[2]) =>
      void handle(
        {
          api: this.api,
          deleter: this.deleter,
          store: this.store,
          registry: this.registry,
          faults: this.faults,
          watches: this.watches,
          tokens: this.tokens,
          bookmarkIntervalMs: this.opts.bookmarkIntervalMs ?? 60_000,
          now: () => Date.now(),
          control: (a, b) => control.run(a, b),
          log: (e) => this.logRequest(e),
        },
        req,
        res,
      );
    const server = tls
      ? createHttps({ cert: tls.cert, key: tls.key }, handler)
      : createHttp(handler);
    server.keepAliveTimeout = 65_000;
    const host = this.opts.host ?? '127.0.0.1';
    await new Promise<void>((resolve, reject) => {
      server.once('error', (e) =>
        reject(
          new KubeSimStartError(
            `kube-sim cannot listen on ${host}:${this.opts.port ?? 0}: ${e.message}`,
            { cause: e },
          ),
        ),
      );
      server.listen(this.opts.port ?? 0, host, () => resolve());
    });
    this.server = server;
    const port = (server.address() as AddressInfo).port;
    this.urlValue = `${tls ? 'https' : 'http'}://${host}:${port}`;
    this.kubeconfigValue = kubeconfigYaml({
      url: this.urlValue,
      ca: this.caCertificate,
      token: this.token,
    });
    if (this.opts.kubeconfigPath) this.kubeconfigPathValue = this.opts.kubeconfigPath;
    else {
      this.tempDir = await mkdtemp(join(tmpdir(), 'kube-sim-'));
      this.kubeconfigPathValue = join(this.tempDir, 'kubeconfig');
    }
    await writeFile(this.kubeconfigPathValue, this.kubeconfigValue, { mode: 0o600 });
  }

  /**
   * A kubeconfig for one more client with its own bearer token (generated unless given), so a
   * fault can target it (`faults.cutOff({token})`). With token authentication on, the token is
   * accepted from now on; without it, the token is merely sent and recognised.
   */
  async addClient(
    token: string = randomBytes(24).toString('base64url'),
  ): Promise<{ token: string; kubeconfig: string; kubeconfigPath: string }> {
    if (this.tokens.size > 0) this.tokens.add(token);
    const kubeconfig = kubeconfigYaml({ url: this.urlValue, ca: this.caCertificate, token });
    const kubeconfigPath = `${this.kubeconfigPathValue}.client-${++this.clients}`;
    await writeFile(kubeconfigPath, kubeconfig, { mode: 0o600 });
    this.clientFiles.push(kubeconfigPath);
    return { token, kubeconfig, kubeconfigPath };
  }

  private logRequest(e: RequestRecord): void {
    this.requests.push(e);
    if (this.requests.length > 1000) this.requests.splice(0, this.requests.length - 1000);
  }

  private seed(): void {
    const nsType = this.registry.find('', 'v1', 'namespaces')!;
    for (const name of seedNamespaces) {
      const obj = this.api.defaulter.apply(nsType, {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: {
          name,
          uid: `00000000-0000-4000-8000-${Buffer.from(name).toString('hex').slice(0, 12).padEnd(12, '0')}`,
          creationTimestamp: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
          labels: { 'kubernetes.io/metadata.name': name },
        },
      });
      this.store.put(nsType.storageKey, obj);
    }
  }

  /** Closes every open watch; returns how many were open. */
  closeWatches(): number {
    const open = [...this.watches];
    for (const w of open) w.close();
    return open.length;
  }

  /** Back to the initial state: no objects but the seed namespaces, no CRDs, no watches, no faults. */
  async reset(): Promise<void> {
    this.closeWatches();
    this.faults.clear();
    this.store.clear();
    for (const t of this.registry.all()) if (t.crdName) this.registry.removeCrd(t.crdName);
    this.seed();
    return Promise.resolve();
  }

  /** Stops serving, closes every connection and removes the temporary kubeconfig. */
  async stop(): Promise<void> {
    this.closeWatches();
    const server = this.server;
    this.server = undefined;
    if (server) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
    for (const f of this.clientFiles) await rm(f, { force: true });
    if (this.tempDir) await rm(this.tempDir, { recursive: true, force: true });
  }

  /** Creates or updates objects (like `kubectl apply` without the last-applied bookkeeping); returns them as stored. */
  async apply(objects: KubeObject | readonly KubeObject[]): Promise<KubeObject[]> {
    const out: KubeObject[] = [];
    for (const o of (Array.isArray(objects) ? objects : [objects]) as KubeObject[])
      out.push(await this.applyOne(o));
    return out;
  }

  /**
   * Stores an object as it is, skipping every check (names, schemas, sizes, admission), and tells
   * the watches. Test-only: it stands for an object a real API server would refuse, so that tests
   * can prove the controller survives it anyway (defence in depth). Never used by the server.
   */
  storeUnchecked(o: KubeObject): KubeObject {
    const t = this.registry.byKind(o.apiVersion, o.kind);
    if (!t) throw new KubeSimApplyError(`kube-sim does not serve ${o.kind} in ${o.apiVersion}`);
    const namespace = t.namespaced ? (o.metadata.namespace ?? 'default') : undefined;
    const metadata = {
      uid: randomUUID(),
      creationTimestamp: new Date().toISOString(),
      ...o.metadata,
      ...(namespace === undefined ? {} : { namespace }),
    };
    return this.store.put(t.storageKey, { ...o, metadata });
  }

  /** Removes an object stored by `storeUnchecked` (or any other), telling the watches. */
  removeUnchecked(o: KubeObject): void {
    const t = this.registry.byKind(o.apiVersion, o.kind);
    if (!t) throw new KubeSimApplyError(`kube-sim does not serve ${o.kind} in ${o.apiVersion}`);
    const namespace = t.namespaced ? (o.metadata.namespace ?? 'default') : undefined;
    this.store.remove(t.storageKey, namespace, o.metadata.name ?? '');
  }

  /** Applies every object of a YAML file. */
  async applyFile(path: string): Promise<KubeObject[]> {
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (e) {
      throw new KubeSimApplyError(`cannot read ${path}: ${(e as Error).message}`, { cause: e });
    }
    return this.apply(parseManifests(text, path));
  }

  /** Objects of one kind (optionally one namespace) as the server holds them now. */
  list(apiVersion: string, kind: string, namespace?: string): KubeObject[] {
    const t = this.registry.byKind(apiVersion, kind);
    if (!t) throw new KubeSimApplyError(`kube-sim does not serve ${kind} in ${apiVersion}`);
    return [...this.store.list(t.storageKey, namespace)].map((o) => ({ ...o, apiVersion }));
  }

  /** One object as the server holds it now, or undefined. */
  get(
    apiVersion: string,
    kind: string,
    namespace: string | undefined,
    name: string,
  ): KubeObject | undefined {
    const t = this.registry.byKind(apiVersion, kind);
    if (!t) throw new KubeSimApplyError(`kube-sim does not serve ${kind} in ${apiVersion}`);
    const o = this.store.get(t.storageKey, t.namespaced ? namespace : undefined, name);
    return o && { ...o, apiVersion };
  }

  private async applyOne(o: KubeObject): Promise<KubeObject> {
    const t = this.registry.byKind(o.apiVersion, o.kind);
    if (!t)
      throw new KubeSimApplyError(
        `no matches for kind "${o.kind}" in version "${o.apiVersion}" (is its CRD applied first?)`,
      );
    const namespace = t.namespaced ? (o.metadata.namespace ?? 'default') : undefined;
    const s: Scope = {
      type: t,
      namespace,
      name: o.metadata.name,
      subresource: undefined,
      query: new URLSearchParams({ fieldValidation: 'Strict' }),
    };
    // Unconditional like `kubectl apply` (no resourceVersion): a writer in between (a status
    // writer, a controller) never makes it a 409 Conflict; the server recomputes on the new state.
    const { resourceVersion: _ignored, ...metadata } = o.metadata;
    const body = { ...o, metadata: { ...metadata, ...(namespace ? { namespace } : {}) } };
    try {
      const existing = o.metadata.name
        ? this.store.get(t.storageKey, namespace, o.metadata.name)
        : undefined;
      if (!existing) return (await this.api.create({ ...s, name: undefined }, body)).object;
      return (await this.api.update(s, body)).object;
    } catch (e) {
      if (e instanceof ApiError)
        throw new KubeSimApplyError(`${o.kind} ${o.metadata.name ?? ''}: ${e.message}`, {
          cause: e,
          details: { code: e.code },
        });
      throw e;
    }
  }
}
