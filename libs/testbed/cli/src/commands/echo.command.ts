import type { EchoOptions } from '#testbed/echo';
import { ExitCode } from '../product-cli.js';
import type { CliCommand } from '../product-cli.js';

/** Resolves when the process is asked to stop (SIGTERM or SIGINT). */
function untilSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const onSignal = (signal: NodeJS.Signals): void => {
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
      resolve(signal);
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  });
}

export const echoCommand: CliCommand = {
  name: 'echo',
  register(program, ctx) {
    const { io } = ctx;
    program
      .command('echo')
      .description(
        'run an echo backend answering with JSON describing each request (Gateway API conformance ' +
          'echo-basic shape); honours HTTP_PORT, H2C_PORT, HTTPS_PORT, TLS_SERVER_CERT, ' +
          'TLS_SERVER_PRIVKEY, TLS_CLIENT_CACERTS, GRPC_ECHO_SERVER, NAMESPACE, POD_NAME, POD_IP',
      )
      .option('--address <ip>', 'address to bind (default: $POD_IP or 127.0.0.1)')
      .option('--port <n>', 'HTTP (or plaintext gRPC) port (default: $HTTP_PORT or 3000)')
      .option('--grpc', 'serve the gRPC echo service instead of HTTP (also: $GRPC_ECHO_SERVER)')
      .option('--h2c-port <n>', 'also serve HTTP/2 cleartext on this port (default: $H2C_PORT)')
      .option(
        '--https-port <n>',
        'HTTPS port when TLS files are set (default: $HTTPS_PORT or 8443)',
      )
      .option(
        '--profile <name>',
        "apply an upstream image's defaults (echo-basic: h2c on 3001; httpbun: httpbun's " +
          '/status, /response-headers, /cookies, /basic-auth, /delay and /info routes, port ' +
          '$HTTPBUN_BIND or 80)',
      )
      .option('-o, --output <format>', 'text or json (the listening line)', 'text')
      .action(async (opts: EchoOptions & { output: string }) => {
        // loaded when the command runs: the other commands do not pay for it
        const lib = await import('#testbed/echo');
        const { EchoConfigError, resolveEchoConfig, startEcho } = lib;
        let config;
        try {
          config = resolveEchoConfig(opts, process.env);
        } catch (e) {
          if (!(e instanceof EchoConfigError)) throw e;
          io.err(`haptic echo: ${e.message}`);
          ctx.setExit(ExitCode.invalidInput);
          return;
        }
        const stopped = untilSignal();
        const running = await startEcho(config);
        for (const l of running.listeners) {
          io.out(
            opts.output === 'json'
              ? JSON.stringify({ listening: l.kind, address: l.address, port: l.port })
              : `echo (${l.kind}) listening on ${l.address}:${l.port}`,
          );
        }
        await stopped;
        await running.close();
        ctx.setExit(ExitCode.ok);
      });
  },
};
