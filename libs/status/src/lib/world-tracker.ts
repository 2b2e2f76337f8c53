import type { ObservedWorld, PodState } from './conditions.js';

/**
 * Folds what the controller sees (config accepted/refused, renders, validations, deployments,
 * pods) into the ObservedWorld the conditions are computed from. Pure: the listener feeds it.
 */
export class WorldTracker {
  private world: ObservedWorld = { pods: [] };
  private quarantinedSinceRender = 0;
  private readonly perPod = new Map<string, PodState>();
  private podNames: readonly string[] = [];

  get current(): ObservedWorld {
    return this.world;
  }

  accepted(generation: number): void {
    const { rejected: _dropped, ...rest } = this.world;
    this.world = { ...rest, accepted: { generation } };
  }

  rejected(generation: number, message: string): void {
    this.world = { ...this.world, rejected: { generation, message } };
  }

  quarantined(): void {
    this.quarantinedSinceRender++;
  }

  rendered(hash: string): void {
    this.world = {
      ...this.world,
      render: { ok: true, hash, quarantined: this.quarantinedSinceRender },
    };
    this.quarantinedSinceRender = 0;
  }

  failed(stage: 'render' | 'validation', message: string): void {
    this.world = { ...this.world, render: { ok: false, stage, message } };
    this.quarantinedSinceRender = 0;
  }

  validated(hash: string, generation: number): void {
    const prior = this.world.render;
    // a validation success after a validation failure of an older render clears the failure
    const render =
      prior && !prior.ok && prior.stage === 'validation'
        ? { ok: true as const, hash, quarantined: 0 }
        : prior;
    this.world = { ...this.world, ...(render ? { render } : {}), validated: { hash, generation } };
  }

  deployed(pod: string, hash: string, reloaded: boolean, at: string): void {
    const prior = this.perPod.get(pod);
    const lastReload = reloaded ? at : prior?.lastReload;
    this.perPod.set(pod, { name: pod, deployedHash: hash, ...(lastReload ? { lastReload } : {}) });
    this.refreshPods();
  }

  deployFailed(pod: string, reason: string): void {
    const prior = this.perPod.get(pod) ?? { name: pod, deployedHash: '' };
    this.perPod.set(pod, { ...prior, lastError: reason });
    this.refreshPods();
  }

  /** The current HAProxy pods (names as deploy facts name them); others are forgotten. */
  pods(names: readonly string[]): void {
    this.podNames = [...names].sort();
    for (const n of [...this.perPod.keys()]) if (!this.podNames.includes(n)) this.perPod.delete(n);
    this.refreshPods();
  }

  private refreshPods(): void {
    const pods = this.podNames.map((n) => this.perPod.get(n) ?? { name: n, deployedHash: '' });
    this.world = { ...this.world, pods };
  }
}
