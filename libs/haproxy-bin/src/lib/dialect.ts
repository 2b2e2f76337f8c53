import { type HaproxyVersion, isAtLeast } from './version.js';

/** How a HAProxy branch speaks on its CLI sockets: what the agent and escaper must adapt to. */
export interface HaproxyDialect {
  /**
   * Master CLI `reload`: `silent` (2.6: empty reply, the master re-executes itself; success is
   * read from `show proc`) or `synchronous` (2.7+: `Success=1|0`, `--`, then the start-up log).
   */
  readonly reload: 'silent' | 'synchronous';
  /** `<<%EOF%` ... `%EOF%` payloads (3.0+), which may contain blank lines; else only `<<` to a blank line. */
  readonly customPayloadTerminator: boolean;
  /**
   * 2.6 runs every line of a non-interactive message as a command, so a payload cut short by a
   * blank line runs the rest as commands; 3.0 runs the first command (and its payload) only.
   */
  readonly runsEveryLine: boolean;
  /** `wait <ms> srv-removable <b>/<s>` before `del server` (3.0+). */
  readonly waitSrvRemovable: boolean;
}

/** The CLI dialect of a HAProxy version (measured on 2.6.12 and 3.0.11, see the README). */
export function haproxyDialect(version: HaproxyVersion): HaproxyDialect {
  const v30 = isAtLeast(version, 3, 0);
  return {
    reload: isAtLeast(version, 2, 7) ? 'synchronous' : 'silent',
    customPayloadTerminator: v30,
    runsEveryLine: !v30,
    waitSrvRemovable: v30,
  };
}
