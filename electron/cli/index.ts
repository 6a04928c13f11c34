import { Command } from 'commander';
import { AppError } from '../../shared/api';
import { addAnnotationCommands } from './annotation';
import { addEvalCommands } from './eval';
import { addTeamCommands } from './team';
import { CliError } from './client';
import { cliHint } from './hints';
import { version } from './common';
import { addPipelineCommands } from './pipeline';
import { addCorpusCommands } from './corpus';
import { addDataCommands } from './data';
import { addRetrievalCommands } from './retrieval';
import { addCallCommand, addServeCommand } from './serve';
import { addReleaseCommands } from './release';
import { addConstructionCommands } from './construction';
import { addAskFirstCommands } from './ask-first';

/**
 * `awb`: every operation reachable without a window. The CLI is the third client of the
 * operation map (beside IPC and HTTP): each command turns its arguments into an operation's input
 * (strings to numbers and lists, nothing more) and calls it through `dispatch`, so validation,
 * defaults and error messages are the API's own. Every command takes `--db PATH` and `--json`.
 * Exit codes: 0 success, 1 the work failed, 2 bad usage or invalid input.
 */

export function buildProgram(): Command {
  const program = new Command('awb')
    .description('Ambiguity Workbench: build, validate and use benchmarks of ambiguous questions.')
    .version(version(), '-V, --version')
    .showHelpAfterError()
    .configureOutput({ outputError: (text, write) => write(text) })
    // Set before the commands are added, so that they inherit it: help and version are not
    // failures; usage mistakes exit with 2.
    .exitOverride((error) => process.exit(error.exitCode === 0 ? 0 : 2));

  addDataCommands(program);
  addCorpusCommands(program);
  addRetrievalCommands(program);
  addAnnotationCommands(program);
  addPipelineCommands(program);
  addReleaseCommands(program);
  addEvalCommands(program);
  addConstructionCommands(program);
  addAskFirstCommands(program);
  addTeamCommands(program);
  addServeCommand(program);
  addCallCommand(program);
  return program;
}

export async function main(argv: readonly string[]): Promise<void> {
  // `awb ... | head` closes the pipe early: that is the reader's choice, not an error.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
    throw error;
  });
  const program = buildProgram();
  try {
    await program.parseAsync(argv as string[]);
  } catch (error) {
    const json = argv.includes('--json');
    const message = error instanceof Error ? error.message : String(error);
    const code = error instanceof CliError || error instanceof AppError ? error.code : 'internal';
    const hint = error instanceof CliError || error instanceof AppError ? error.hint : undefined;
    if (json) process.stdout.write(`${JSON.stringify({ error: { code, message, ...(hint ? { hint } : {}) } }, null, 2)}\n`);
    else process.stderr.write(`awb: ${message}\n${hint ? `awb: ${cliHint(hint)}\n` : ''}`);
    process.exitCode = error instanceof CliError ? error.exitCode : 1;
  }
}
