import type { Context } from 'liquidjs';
import type { Pacer } from './drive.js';
import type { FragmentSession } from './fragments.js';
import type { RenderNotice, RenderSnapshot } from './types.js';

/** Where maps, general files and certificates live on the HAProxy side. */
export interface OutputDirs {
  readonly maps: string;
  readonly ssl: string;
  readonly general: string;
}

/** Mutable state of one render attempt, reachable from filters and tags through the context. */
export interface RenderState {
  readonly snapshot: RenderSnapshot;
  readonly watchedNames: readonly string[];
  readonly dirs: OutputDirs;
  /** The arrays handed out as `resources.<name>`, so `get`/`fetch` know what to look up. */
  readonly listOwners: WeakMap<object, string>;
  readonly certificates: Map<string, string>;
  readonly crtLists: Map<string, string>;
  /** General files registered by `register_file` (CA revocation lists, ...). */
  readonly generalFiles: Map<string, string>;
  /** Notices the context providers gave in this render attempt. */
  readonly notices: RenderNotice[];
  /** The fragment cache of this render (incremental rendering); absent when it is off. */
  readonly fragments?: FragmentSession;
  /** Set when the render gives way to the event loop (`renderYielding`): when it is due to. */
  readonly pacer?: Pacer;
}

// Keyed by the render's globals object, which liquidjs shares with every spawned child context
// (render tag, partials), unlike registers.
const STATES = new WeakMap<object, RenderState>();

/** Associates a render's state with its globals object. */
export function bindState(globals: object, state: RenderState): void {
  STATES.set(globals, state);
}

/** The render state of a context; a bug if the context was not created by `render`. */
export function stateOf(ctx: Context): RenderState {
  const state = STATES.get(ctx.globals);
  if (!state) throw new Error('haptic render state missing: context not created by render()');
  return state;
}
