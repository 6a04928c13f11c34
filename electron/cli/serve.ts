import type { Command } from 'commander';
import { AppError, isOperation, startsAJob, operations } from '../../shared/api';
import { CliError, withClient } from './client';
import { databasePath, integer, number, printJson, version, withCommon, type CommonOptions } from './common';
import { serve, type Serving } from '../transport/serve';

interface ServeFlags {
  port?: number;
  host: string;
  seedDemo?: boolean;
  pack?: string;
  team?: boolean;
  allowedHost: string[];
  trustedProxy: string[];
  maxUploadMb?: number;
  endpoints?: string;
}

const repeat = (value: string, previous: string[]) => [...previous, value];

export function addServeCommand(program: Command): void {
  withCommon(
    program
      .command('serve')
      .description('serve the UI and the API over HTTP (browser mode)')
      .option('--port <n>', 'port (0 picks a free one; default 4310, or any free one when it is taken)', integer)
      .option('--host <host>', 'interface to listen on', '127.0.0.1')
      .option('--team', 'team mode even on loopback: everyone signs in (any other --host needs accounts anyway)')
      .option('--seed-demo', 'seed a new, empty database with the bundled demo data')
      .option('--pack <file>', 'open an offline annotation pack (judging needs nothing else)')
      .option('--allowed-host <name>', 'a name people reach the server by, beside loopback, its public origin and (bound to all interfaces) its own addresses; repeatable', repeat, [])
      .option('--trusted-proxy <address>', 'believe X-Forwarded-For/-Proto only from this reverse proxy address (default AWB_TRUSTED_PROXY); repeatable', repeat, [])
      .option('--max-upload-mb <n>', 'largest file accepted by upload, in MB (default 512)', number)
      .option('--endpoints <file>', 'a config whose endpoints network callers may choose by name (see docs/team-security.md)')
      .argument('[pack]', 'same as --pack'),
  ).action(async (packArgument: string | undefined, options: CommonOptions & ServeFlags) => {
    const pack = options.pack ?? packArgument;
    // The port is the CLI's own argument (no operation takes it): a bad one is bad usage.
    if (options.port !== undefined && (!Number.isInteger(options.port) || options.port < 0 || options.port > 65535)) {
      throw new CliError('invalid_input', `--port: expected a port number from 0 to 65535, not ${options.port}`);
    }
    let serving: Serving;
    try {
      serving = await serve({
        databasePath: databasePath(options),
        version: version(),
        host: options.host,
        ...(options.port !== undefined ? { port: options.port } : {}),
        team: options.team === true,
        seedDemo: options.seedDemo === true,
        ...(pack ? { pack } : {}),
        ...(options.allowedHost.length ? { allowedHosts: options.allowedHost } : {}),
        ...(options.trustedProxy.length ? { trustedProxies: options.trustedProxy } : {}),
        ...(options.maxUploadMb !== undefined ? { maxUploadMb: options.maxUploadMb } : {}),
        ...(options.endpoints ? { endpoints: options.endpoints } : {}),
        log: (message) => process.stderr.write(`${message}\n`),
      });
    } catch (error) {
      // What serving refuses (a broken pack, a port taken) is the work failing, not bad usage.
      if (error instanceof AppError) throw new CliError(error.code, error.message, false, error.hint);
      throw error;
    }
    if (options.json) printJson({ url: serving.url, database: serving.database });
    else if (serving.pack) process.stdout.write(`Ambiguity Workbench is running at ${serving.url}\nPack: ${serving.pack.file} (judgments are saved to ${serving.pack.results})\nPress Ctrl+C to stop.\n`);
    else process.stdout.write(`Ambiguity Workbench is running at ${serving.url}\nDatabase: ${serving.database}\nPress Ctrl+C to stop.\n`);
    const stop = () => {
      serving.stop();
      process.exit(0);
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}

/** `awb call OPERATION [JSON]`: any operation of the map, by name, with its input as JSON. */
export function addCallCommand(program: Command): void {
  withCommon(
    program
      .command('call')
      .description('call any operation of the API by name with a JSON input, e.g. awb call instance:get \'{"id": 1}\' (--list names them)')
      .argument('[operation]', 'the operation, noun:verb')
      .argument('[input]', 'its input as JSON (default {})')
      .option('--list', 'list the operations'),
  ).action((name: string | undefined, input: string | undefined, options: CommonOptions & { list?: boolean }) => {
    if (options.list || !name) {
      const names = Object.keys(operations).sort();
      if (options.json) printJson(names);
      else process.stdout.write(`${names.join('\n')}\n`);
      return;
    }
    let parsed: unknown = {};
    if (input !== undefined) {
      try {
        parsed = JSON.parse(input);
      } catch (error) {
        throw new CliError('invalid_input', `${name}: the input is not JSON: ${(error as Error).message}`);
      }
    }
    if (!isOperation(name)) throw new CliError('unknown_operation', `No operation named ${name} (awb call --list names them)`);
    return withClient(options, async (client) => {
      // An operation that starts a job answers once the job ends, with its result.
      if (startsAJob(name)) printJson(await client.runJob(name, parsed as never, name));
      else printJson(await client.call(name, parsed as never));
    });
  });
}
