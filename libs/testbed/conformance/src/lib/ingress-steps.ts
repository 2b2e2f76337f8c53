// Step definitions of the Ingress conformance features (kubernetes-sigs/ingress-controller-conformance),
// run against the stack: kube-sim, node-sim, the controller and HAProxy pods with a real HAProxy.
import {
  AfterAll,
  After,
  Before,
  BeforeAll,
  Given,
  Then,
  When,
  setDefaultTimeout,
  type DataTable,
} from '@cucumber/cucumber';
import { parse } from 'yaml';
import { Stack, waitFor } from '#testbed/stack';
import * as check from './checks.js';
import { IngressScenario } from './ingress-world.js';

setDefaultTimeout(180_000);

let stack: Stack | undefined;
let scenario: IngressScenario;
const reply = () => {
  if (!scenario.reply) throw new Error('no request was sent');
  return scenario.reply;
};

BeforeAll({ timeout: 300_000 }, async () => {
  stack = await Stack.start({ fast: true });
});
AfterAll({ timeout: 60_000 }, async () => {
  await stack?.stop();
});
Before(() => {
  if (!stack) throw new Error('the stack did not start');
  scenario = new IngressScenario(stack);
});
After(async () => {
  await scenario.cleanUp();
});

Given(/^a new random namespace$/, () => scenario.newNamespace());
Given(
  /^a self-signed TLS secret named "([^"]*)" for the "([^"]*)" hostname$/,
  (name: string, host: string) => scenario.tlsSecret(name, host),
);
Given(/^an Ingress resource named "([^"]*)" with this spec:$/, (name: string, spec: string) =>
  scenario.applyIngress({ metadata: { name }, spec: parse(spec) as Record<string, unknown> }),
);
Given(/^an Ingress resource$/, (manifest: string) =>
  scenario.applyIngress(parse(manifest) as Record<string, unknown>),
);
Given(/^an Ingress resource in a new random namespace$/, async (manifest: string) => {
  await scenario.newNamespace();
  await scenario.applyIngress(parse(manifest) as Record<string, unknown>);
});

Then(/^The Ingress status shows the IP address or FQDN where it is exposed$/, async () => {
  await scenario.settled(true);
  await waitFor(
    'status.loadBalancer.ingress to name an address',
    async () => ((await scenario.statusAddresses()).length > 0 ? true : undefined),
    check.STATUS_ADDRESS_GRACE_MS,
    200,
  );
});
Then(/^The Ingress status should not contain the IP address or FQDN$/, async () => {
  await scenario.settled(false);
  await check.expectNoAddressFor(() => scenario.statusAddresses());
});
Then(
  /^The backend deployment "([^"]*)" for the ingress resource is scaled to (\d+)$/,
  async (name: string, n: string) => {
    await scenario.scale(name, Number(n));
    await scenario.settled(true);
  },
);

When(
  /^I send a "([^"]*)" request to http:\/\/"([^"]*)"\/"([^"]*)"$/,
  async (method: string, host: string, path: string) => {
    scenario.reply = await scenario.request(method, 'http', host, path);
  },
);
When(/^I send a "([^"]*)" request to "([^"]*)"$/, async (method: string, url: string) => {
  const u = new URL(url);
  scenario.reply = await scenario.request(
    method,
    u.protocol.replace(':', ''),
    u.hostname,
    u.pathname,
  );
});
When(/^I send (\d+) requests to "([^"]*)"$/, async (n: string, url: string) => {
  const u = new URL(url);
  scenario.replies = [];
  for (let i = 0; i < Number(n); i++)
    scenario.replies.push(
      await scenario.request('GET', u.protocol.replace(':', ''), u.hostname, u.pathname),
    );
});

Then(/^the secure connection must verify the "([^"]*)" hostname$/, (host: string) =>
  check.expectCertificateFor(reply().peerAltNames, host),
);
Then(/^the response status-code must be (\d+)$/, (status: string) =>
  check.expectStatus(reply(), Number(status)),
);
Then(/^the response must be served by the "([^"]*)" service$/, (svc: string) =>
  check.expectServedBy(reply(), svc),
);
Then(/^the response proto must be "([^"]*)"$/, (proto: string) =>
  check.expectResponseProto(reply(), proto),
);
Then(/^the response headers must contain <key> with matching <value>$/, (table: DataTable) => {
  for (const row of table.hashes()) check.expectResponseHeader(reply(), row['key']!, row['value']!);
});
Then(/^the request method must be "([^"]*)"$/, (m: string) =>
  check.expectEcho(reply(), 'method', m),
);
Then(/^the request path must be "([^"]*)"$/, (p: string) =>
  check.expectEcho(reply(), 'path', `/${p}`),
);
Then(/^the request proto must be "([^"]*)"$/, (p: string) => check.expectEcho(reply(), 'proto', p));
Then(/^the request host must be "([^"]*)"$/, (h: string) => check.expectEcho(reply(), 'host', h));
Then(/^the request headers must contain <key> with matching <value>$/, (table: DataTable) => {
  for (const row of table.hashes()) check.expectRequestHeader(reply(), row['key']!, row['value']!);
});
Then(
  /^all the responses status-code must be (\d+) and the response body should contain the IP address of (\d+) different Kubernetes pods$/,
  async (status: string, pods: string) => {
    for (const r of scenario.replies) check.expectStatus(r, Number(status));
    const backend = check.echoBody(scenario.replies[0]!).service ?? '';
    const ready = await scenario.stack.readyPods(scenario.namespace, { app: backend });
    check.expectDistinctPods(
      scenario.replies,
      Number(pods),
      new Map(ready.map((p) => [p.name, p.ip])),
    );
  },
);
