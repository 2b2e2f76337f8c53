import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEcho } from '#testbed/echo';
import { parseServersState } from '#haproxy-config';
import type { KubeObject, KubeSim } from '#testbed/kube-sim';
import { waitFor } from '#testbed/stack';
import type { RunningAgent } from '../../../apps/agent/src/index.js';
import { answerProblems, expectedAnswer, requestTo } from '../../hostile/answers.js';
import { quarantinedIndexes } from '../../hostile/classify.js';
import { cliCommands } from '../../hostile/cli-split.js';
import { buildCorpus, type HostileCase } from '../../hostile/corpus.js';
import { corpusLibrary, LibraryRenderer } from '../../hostile/library.js';
import { baseObjects, type Obj } from '../../hostile/objects.js';
import { makePki, type Pki } from '../../hostile/pki.js';
import { freePort, getWithHost, printedPort, type HapticProcess } from '../controller/support.js';
import { runController, startBed, templateConfig, type Bed } from '../support/bed.js';

// Leg "live, webhook off": hostile objects go through kube-sim (where kube-sim refuses one, as a
// real API server would, it is counted as refused there and then stored unchecked, to prove the
// controller survives it anyway), the controller (`haptic run`), the agent and a real HAProxy.
// Each case: the object is quarantined (log line + /debug/quarantine; Events and status reasons
// belong to libs/status) or served safely; the base hosts keep answering real requests;
// `show map` holds exactly the expected entries and `show servers state` only expected
// servers; every runtime command the agent sent is one command with escaped arguments.

const HAPROXY_IP = '127.0.0.71';
const ECHO_IP = '127.0.0.72';
const FULL = process.env['HOSTILE_FULL'] === '1';
/** The whole corpus may take an hour on a slow machine; the sample has a real budget. */
const BUDGET_MS = FULL ? 3_600_000 : 600_000;
/** `HOSTILE_CASES=id,id`: only these cases (to chase one). */
const ONLY = process.env['HOSTILE_CASES']?.split(',');
/**
 * The `npm test` sample: one case per hazard kind and per kind of field, and the expansion family
 * on each way a value reaches HAProxy (typed filters, the operator's bare `{{ }}`, a map entry
 * the agent adds at runtime, a realm HAProxy answers with).
 */
const SAMPLE = [
  'ingress.host/newline',
  'ingress.path/cli-command',
  'ingress.path/semicolon',
  'ingress.path/env-dollar',
  'annotation request-headers (value)/log-format-flags',
  'annotation response-headers (value)/sample-fetch-cookie',
  'annotation route-tag (bare template)/log-format',
  'annotation route-tag (bare template)/env-quoted',
  'annotation auth-realm/space',
  'ingress.metadata.namespace/space',
  'service.name/hash',
  'endpointslice.address/directive-injection',
  'secret.name (tls)/semicolon',
  'annotation request-headers (value)/double-quote',
  'annotation request-headers (value)/log-format',
  'annotation redirect-to/escaped-semicolon',
  'certificate/key-mismatch',
  'certificate/lines-after-pem',
];
const refOf = (o: { namespace?: string | undefined; name: string }) =>
  `${o.namespace ?? ''}/${o.name}`;

interface LiveOutcome {
  readonly id: string;
  readonly refusedByApi: number;
  readonly verdict: 'quarantined' | 'served-safely';
}

describe('the hostile-input corpus through the live path (webhook off)', () => {
  let pki: Pki;
  let sim: KubeSim;
  let echo: RunningEcho;
  let agent: RunningAgent;
  let controller: HapticProcess;
  let renderer: LibraryRenderer;
  let base: Obj[];
  let cases: HostileCase[];
  let bed: Bed;
  let http: number;
  let health: number;
  const agentLog: string[] = [];
  const outcomes: LiveOutcome[] = [];
  /** Hostile Ingresses that answered a real request as their fields say. */
  let requested = 0;

  const put = (o: object) => sim.apply(o as KubeObject);
  const via = (host: string) => getWithHost(HAPROXY_IP, http, host);
  const debug = async <T>(path: string): Promise<T> =>
    (await (await fetch(`http://127.0.0.1:${health}/debug/${path}`)).json()) as T;

  beforeAll(async () => {
    pki = makePki();
    bed = await startBed({
      prefix: 'haptic-hostile-live-',
      agents: [HAPROXY_IP],
      echo: { address: ECHO_IP, context: { service: 'echo', pod: 'echo-0' } },
      agent: { log: (line) => agentLog.push(line) },
    });
    ({ sim, echo } = bed);
    agent = bed.agents[0]!;
    const backend = { ip: ECHO_IP, port: echo.listeners[0]!.port };
    http = await freePort(HAPROXY_IP);
    const [https, stats] = [await freePort(HAPROXY_IP), await freePort(HAPROXY_IP)];
    const library = corpusLibrary();
    renderer = new LibraryRenderer(library.config);
    const resource = parse(library.text) as { spec: Record<string, unknown> };
    const spec = resource.spec;
    delete spec['validationTests'];
    const extra = (spec['templatingSettings'] as { extraContext: Record<string, unknown> })
      .extraContext;
    Object.assign(extra, { http_port: http, https_port: https, stats_port: stats });
    await put(templateConfig(agent.port, spec));
    base = baseObjects(pki, backend);
    for (const o of base) await put(o);
    const all = buildCorpus(pki, backend);
    cases = all.filter((c) => (ONLY ? ONLY.includes(c.id) : FULL || SAMPLE.includes(c.id)));
    controller = runController({ kubeconfig: sim.kubeconfigPath, identity: 'hostile' });
    health = await printedPort(controller);
    await waitFor(
      'good.example.com to be served',
      async () => ((await via('good.example.com')).status === 200 ? true : undefined),
      60_000,
    );
  }, 180_000);

  afterAll(async () => {
    await bed?.stop([controller]);
  });

  /** Map keys HAProxy holds now, per map file name (`show map`, then `show map <file>`). */
  const runtimeMaps = async (): Promise<Record<string, string[]>> => {
    const admin = agent.context.haproxy.admin;
    const out: Record<string, string[]> = {};
    for (const line of (await admin.send('show map')).split('\n')) {
      const file = /^\d+\s+\(([^)]*)\)/.exec(line.trim())?.[1];
      if (file === undefined) continue;
      const name = file.split('/').pop() ?? file;
      const reply = await admin.send(`show map ${file}`);
      out[name] = reply
        .split('\n')
        .map((l) => /^0x[0-9a-f]+ (.*)$/.exec(l)?.[1])
        .filter((l): l is string => l !== undefined)
        .sort();
    }
    return out;
  };
  const expectedMaps = (objects: readonly Obj[]): Record<string, string[]> => {
    const r = renderer.render(objects);
    if (!r.ok) throw new Error('the expectation does not render');
    return Object.fromEntries(
      Object.entries(r.outputs.maps).map(([f, text]) => [
        f,
        text
          .split('\n')
          .filter((l) => l !== '')
          .sort(),
      ]),
    );
  };
  const mapsEqual = async (want: Record<string, string[]>) => {
    const got = await runtimeMaps();
    return JSON.stringify(got) === JSON.stringify(want) ? got : undefined;
  };

  async function runCase(c: HostileCase): Promise<LiveOutcome> {
    const logFrom = agentLog.length;
    const inProcess = renderer.render([...base, ...c.objects]);
    if (!inProcess.ok) throw new Error(`${c.id} does not render in process`);
    const left = quarantinedIndexes(c.objects, inProcess);
    let refusedByApi = 0;
    for (const o of c.objects) {
      try {
        await put(o);
      } catch {
        refusedByApi++;
        sim.storeUnchecked(o);
      }
    }
    const served = c.objects.filter((_, k) => !left.has(k));
    const want = expectedMaps([...base, ...served]);
    if (left.size > 0) {
      const names = [...left].map((k) => refOf(c.objects[k]!.metadata)).sort();
      await waitFor(`${c.id}: quarantined`, async () => {
        const q = await debug<{ objects: { namespace?: string; name: string }[] }>('quarantine');
        const listed = q.objects.map(refOf).sort();
        return JSON.stringify(listed) === JSON.stringify(names) ? true : undefined;
      });
      // the log line reaches this process through a pipe: it may come after /debug has it
      await waitFor(`${c.id}: the quarantine logged`, () =>
        Promise.resolve(controller.output().includes('quarantined ') ? true : undefined),
      );
    }
    await waitFor(`${c.id}: show map holds exactly the expected entries`, () => mapsEqual(want));
    if (left.size === 0) requested += await checkAnswers(c);
    // Everything else keeps being served (real requests).
    expect((await via('good.example.com')).status, c.id).toBe(200);
    expect((await via('annotated.example.com')).status, c.id).toBe(200);
    await checkServers(c.id);
    checkRuntimeLog(c.id, agentLog.slice(logFrom));
    for (const o of [...c.objects].reverse()) sim.removeUnchecked(o);
    await waitFor(`${c.id}: removed`, () => mapsEqual(expectedMaps(base)));
    return { id: c.id, refusedByApi, verdict: left.size > 0 ? 'quarantined' : 'served-safely' };
  }

  /**
   * A real request to each Ingress of a case served whole: the status its annotations call for,
   * and every header value set from an annotation seen literally (by the echo, or on the answer).
   */
  async function checkAnswers(c: HostileCase): Promise<number> {
    let n = 0;
    for (const o of c.objects) {
      if (o.kind !== 'Ingress') continue;
      const want = expectedAnswer(o);
      let last: string[] = [];
      await waitFor(`${c.id}: ${want.host} answers as its fields say`, async () => {
        last = answerProblems(want, await requestTo(HAPROXY_IP, http, want.host, want.path));
        return last.length === 0 ? true : undefined;
      }).catch((e: unknown) => {
        throw new Error(`${c.id}: ${want.host}${want.path}: ${last.join('; ')}`, { cause: e });
      });
      n++;
    }
    return n;
  }

  /** `show servers state`: only the echo endpoint and free slots, in well-formed backends. */
  async function checkServers(id: string): Promise<void> {
    const rows = parseServersState(await agent.context.haproxy.admin.send('show servers state'));
    expect(rows.length, id).toBeGreaterThan(0);
    for (const row of rows) {
      expect([ECHO_IP, '0.0.0.0'], `${id}: ${JSON.stringify(row)}`).toContain(row['srv_addr']);
      expect(row['be_name'], id).toMatch(/^[A-Za-z0-9_.:-]+$/);
    }
  }

  /** Every runtime command logged is one command, and no message carried stray lines. */
  function checkRuntimeLog(id: string, lines: readonly string[]): void {
    for (const line of lines.filter((l) => l.startsWith('runtime: '))) {
      const command = line.slice('runtime: '.length).replace(/ \(\d+ payload lines\)$/, '');
      expect(cliCommands(command), `${id}: ${line}`).toHaveLength(1);
      expect(line, id).not.toMatch(/unexpected/);
    }
  }

  it(
    'accounts for every case: quarantined or served safely, base traffic unharmed',
    async () => {
      const started = performance.now();
      for (const c of cases) outcomes.push(await runCase(c));
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      const refused = outcomes.filter((o) => o.refusedByApi > 0).length;
      console.log(
        `hostile corpus, live: ${outcomes.length} cases in ${seconds} s;`,
        `${outcomes.filter((o) => o.verdict === 'quarantined').length} quarantined,`,
        `${outcomes.filter((o) => o.verdict === 'served-safely').length} served safely,`,
        `${refused} had objects kube-sim refuses (then stored unchecked);`,
        `${requested} hostile Ingresses answered a real request literally`,
      );
      expect(outcomes).toHaveLength(cases.length);
      expect(cases.length).toBeGreaterThanOrEqual(ONLY?.length ?? (FULL ? 300 : SAMPLE.length));
      // every case served safely had its Ingress asked (each case holds one)
      const served = outcomes.filter((o) => o.verdict === 'served-safely').length;
      expect(requested).toBe(served);
      expect(served).toBeGreaterThan(0);
      // The agent did change HAProxy at runtime, and logged each command.
      expect(agentLog.some((l) => l.startsWith('runtime: '))).toBe(true);
      // The Dataplane password never reaches a log.
      expect(controller.output()).not.toContain('pw-1');
      expect(agentLog.join('\n')).not.toContain('pw-1');
    },
    BUDGET_MS,
  );
});

/** A Pod for the agent, ready, so the controller discovers it. */
