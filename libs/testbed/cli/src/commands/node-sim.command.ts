import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import type * as NodeSimModule from '#testbed/node-sim';
import type { ImageRule, NodeSim, NodeSimOptions } from '#testbed/node-sim';
import { ExitCode } from '../product-cli.js';
import type { CliCommand } from '../product-cli.js';

interface NodeSimFlags {
  kubeconfig: string;
  nodeName: string;
  nodeIp?: string;
  addressRange?: string;
  rootDir?: string;
  imageTable?: string;
  output: string;
}

const RUNNERS = new Set(['run', 'agent', 'haproxy', 'echo']);

/** The node-sim library, loaded on use (@kubernetes/client-node is heavy; every haptic process loads this file). */
type NodeSimLib = typeof NodeSimModule;

/** Reads extra image-table rows from a YAML list of {image, command?, runner, profile?}. */
function readImageTable(file: string, { NodeSimConfigError }: NodeSimLib): ImageRule[] {
  const doc: unknown = parse(readFileSync(file, 'utf8'));
  if (!Array.isArray(doc))
    throw new NodeSimConfigError(`${file}: the image table must be a YAML list`);
  return doc.map((row: unknown, i) => {
    const r = row as Partial<ImageRule>;
    if (typeof r?.image !== 'string' || typeof r.runner !== 'string' || !RUNNERS.has(r.runner)) {
      throw new NodeSimConfigError(
        `${file}[${i}]: needs image (string) and runner (run|agent|haproxy|echo)`,
      );
    }
    return r as ImageRule;
  });
}

function toOptions(
  flags: NodeSimFlags,
  log: (line: string) => void,
  lib: NodeSimLib,
): NodeSimOptions {
  let addressRange: NodeSimOptions['addressRange'];
  if (flags.addressRange !== undefined) {
    const [first, last] = flags.addressRange.split('-');
    if (first === undefined || last === undefined)
      throw new lib.NodeSimConfigError('--address-range must be FIRST-LAST');
    addressRange = { first, last };
  }
  return {
    kubeconfigPath: flags.kubeconfig,
    nodeName: flags.nodeName,
    log,
    ...(flags.nodeIp === undefined ? {} : { nodeIP: flags.nodeIp }),
    ...(addressRange === undefined ? {} : { addressRange }),
    ...(flags.rootDir === undefined ? {} : { rootDir: flags.rootDir }),
    ...(flags.imageTable === undefined
      ? {}
      : { extraImageRules: readImageTable(flags.imageTable, lib) }),
  };
}

function untilSignal(): Promise<void> {
  return new Promise((resolve) => {
    const onSignal = (): void => {
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
      resolve();
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  });
}

export const nodeSimCommand: CliCommand = {
  name: 'node-sim',
  register(program, ctx) {
    const { io } = ctx;
    program
      .command('node-sim')
      .description(
        'play the kubelet and the Deployment/ReplicaSet/EndpointSlice controllers for an API server: ' +
          'each pod runs as a local process on its own loopback address, chosen by image',
      )
      .requiredOption(
        '--kubeconfig <file>',
        'kubeconfig of the API server to watch (e.g. kube-sim)',
      )
      .option('--node-name <name>', 'node name pods are bound to', 'node-sim')
      .option(
        '--node-ip <ip>',
        "the Node's InternalIP, where node ports listen (default: a random one in 127.0.20.1-127.0.23.254)",
      )
      .option('--address-range <first-last>', 'pod addresses (default 127.0.10.1-127.0.19.254)')
      .option(
        '--root-dir <dir>',
        'folder for pod folders (default: a temp folder, removed on stop)',
      )
      .option(
        '--image-table <file>',
        'YAML list of extra image rules {image, command?, runner, profile?}',
      )
      .option('-o, --output <format>', 'text or json (the ready line)', 'text')
      .action(async (flags: NodeSimFlags) => {
        const log = (line: string): void => io.err(`node-sim: ${line}`);
        // loaded when the command runs: the other commands do not pay for it
        const lib = await import('#testbed/node-sim');
        const { NodeSim, NodeSimConfigError } = lib;
        let sim: NodeSim;
        const stopped = untilSignal();
        try {
          sim = await NodeSim.start(toOptions(flags, log, lib));
        } catch (e) {
          if (!(e instanceof NodeSimConfigError)) throw e;
          io.err(`haptic node-sim: ${e.message}`);
          ctx.setExit(ExitCode.invalidInput);
          return;
        }
        const ready = {
          ready: true,
          node: flags.nodeName,
          nodeIP: sim.nodeIP,
          instance: sim.instanceId,
          pid: process.pid,
        };
        io.out(
          flags.output === 'json'
            ? JSON.stringify(ready)
            : `node-sim ready: node ${ready.node} (${ready.nodeIP}), instance ${ready.instance}`,
        );
        await stopped;
        await sim.stop();
        io.out(flags.output === 'json' ? JSON.stringify({ stopped: true }) : 'node-sim stopped');
        ctx.setExit(ExitCode.ok);
      });
  },
};
