import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject, KubeSim } from '#testbed/kube-sim';
import { ingressObject } from '#testbed/testing';
import type { RunningController } from '../../../apps/controller/src/run/controller-app.js';
import {
  NS,
  startController,
  startKubectlBed,
  statusTestConfig,
  until,
  type KubectlBed,
} from './support.js';

// An ingress-nginx annotation the library does not honour, seen as an operator sees it: a
// Warning Event on the Ingress in `kubectl describe ingress` (the real kubectl against kube-sim),
// written once while the notice stays — not once per render — and listed on /debug/notices.
const CONTROLLER = 'k8s.io/ingress-nginx';
const UNKNOWN = 'nginx.ingress.kubernetes.io/no-such-annotation';

const config = statusTestConfig({
  template: '{% for i in nginx.served %}# {{ i.metadata.name }}\n{% endfor %}',
  controllerName: CONTROLLER,
});

const ingress = (name: string, annotations: Record<string, string>): KubeObject =>
  ingressObject({ name, cls: 'nginx', annotations });

describe('render notices as Events (kubectl against kube-sim)', () => {
  let bed: KubectlBed;
  let sim: KubeSim;
  let controller: RunningController;
  const k = (...args: string[]): Promise<string> => bed.k(...args);
  const describeIngress = (name: string) => k('describe', 'ingress', '-n', 'apps', name);
  const eventsOf = async (name: string) =>
    (
      await k(
        'get',
        'events',
        '-n',
        'apps',
        '--field-selector',
        `involvedObject.name=${name}`,
        '-o',
        'jsonpath={range .items[*]}{.reason} {.count}{"\\n"}{end}',
      )
    )
      .trim()
      .split('\n')
      .filter((l) => l !== '');

  beforeAll(async () => {
    bed = await startKubectlBed('haptic-notices-');
    sim = bed.sim;
    await sim.apply([
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } },
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'apps' } },
      {
        apiVersion: 'networking.k8s.io/v1',
        kind: 'IngressClass',
        metadata: { name: 'nginx' },
        spec: { controller: CONTROLLER },
      },
      ingress('carries', { [UNKNOWN]: 'x' }),
      config,
    ]);
    controller = await startController(sim, 'notices-test');
  }, 120_000);

  afterAll(async () => {
    await controller?.stop();
    await bed?.stop();
  });

  it('writes one Warning Event naming the annotation, not one per render, and lists it on /debug/notices', async () => {
    await until('the AnnotationNotHonoured Event', async () =>
      /Warning\s+AnnotationNotHonoured/.test(await describeIngress('carries')),
    );
    const described = await describeIngress('carries');
    process.stdout.write(`--- kubectl describe ingress carries\n${described}\n`);
    expect(described).toContain(`annotation ${UNKNOWN} is unknown, served without it`);
    // Another Ingress makes another render; its own notice's Event shows that render's notices
    // were handled (Events are written in order), and the first one was not written again.
    await sim.apply(ingress('later', { [UNKNOWN]: 'y' }));
    await until('the second Ingress Event', async () =>
      /Warning\s+AnnotationNotHonoured/.test(await describeIngress('later')),
    );
    expect(await eventsOf('carries')).toEqual(['AnnotationNotHonoured 1']);
    const res = await fetch(`http://127.0.0.1:${controller.healthPort}/debug/notices`);
    const body = (await res.json()) as { notices: { object: { name: string }; reason: string }[] };
    expect(body.notices.map((n) => `${n.object.name} ${n.reason}`)).toEqual([
      'carries AnnotationNotHonoured',
      'later AnnotationNotHonoured',
    ]);
  });

  it('writes the Event again when the annotation comes back after it was removed', async () => {
    await sim.apply(ingress('carries', {}));
    await until('the notice gone from /debug/notices', async () => {
      const res = await fetch(`http://127.0.0.1:${controller.healthPort}/debug/notices`);
      const body = (await res.json()) as { notices: { object: { name: string } }[] };
      return !body.notices.some((n) => n.object.name === 'carries');
    });
    await sim.apply(ingress('carries', { [UNKNOWN]: 'x' }));
    await until('the count raised', async () =>
      (await eventsOf('carries')).includes('AnnotationNotHonoured 2'),
    );
    expect(await eventsOf('carries')).toEqual(['AnnotationNotHonoured 2']);
  });
});
