import path from 'node:path';
import { Command } from 'commander';
import {
  CORPUS_FORMATS,
  EMBEDDING_PROVIDERS,
  EXPORT_FORMATS,
  INSTANCE_SORT_COLUMNS,
  SEARCH_MODES,
  AppError,
  isOperation,
  startsAJob,
  operations,
  type CollectedPassage,
  type InstanceDetail,
} from '../../shared/api';
import { AMBIGUITY_TYPES, IMPORT_FORMATS, INSTANCE_STATUSES } from '../../shared/domain';
import { addAnnotationCommands } from './annotation';
import { addEvalCommands } from './eval';
import { addTeamCommands } from './team';
import { CliError, withClient } from './client';
import { cliHint } from './hints';
import { choices, databasePath, integer, list, number, printImportReport, printJson, printTable, version, withCommon, type CommonOptions } from './common';
import { addPipelineCommands } from './pipeline';
import { addReleaseCommands } from './release';
import { serve, type Serving } from '../transport/serve';

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
  addTeamCommands(program);
  addServeCommand(program);
  addCallCommand(program);
  return program;
}

function addDataCommands(program: Command): void {
  withCommon(
    program
      .command('import')
      .description('import a file of base questions or instances (all or nothing, unless --skip-invalid)')
      .argument('[file]', 'the file to import (JSON array, JSON Lines, or the official ASQA splits object)')
      .option('--format <format>', `the file format ${choices(IMPORT_FORMATS)}`)
      .option('--dataset <name>', "dataset name (default: the file name; for awb files, each record's own)")
      .option('--skip-invalid', 'import the valid records and write the invalid ones to a rejects report')
      .option('--rejects <file>', 'where the rejects report goes (default: FILE.rejects.jsonl)')
      .option('--max-record-mb <n>', 'largest record accepted, in MB (default 16)', number),
  ).action((file: string | undefined, options: CommonOptions & { format?: string; dataset?: string; skipInvalid?: boolean; rejects?: string; maxRecordMb?: number }) =>
    withClient(options, async (client) => {
      const report = await client.runJob(
        'dataset:import',
        {
          path: file as string,
          format: options.format as never,
          dataset: options.dataset,
          skipInvalid: options.skipInvalid,
          rejectsFile: options.rejects,
          maxRecordMb: options.maxRecordMb,
        },
        `Importing ${path.basename(file ?? '')}`,
      );
      if (options.json) printJson(report);
      else printImportReport(report);
      // Nothing imported because every record was invalid is a failure, --skip-invalid or not.
      if (!report.committed || (report.rejected > 0 && report.imported + report.duplicates === 0)) process.exitCode = 1;
    }),
  );

  withCommon(program.command('stats').description('count datasets, base questions, passages, instances and interpretations')).action((options: CommonOptions) =>
    withClient(options, async (client) => {
      const stats = await client.call('stats:get', {});
      if (options.json) return printJson(stats);
      printTable(
        ['what', 'count'],
        [
          ['datasets', stats.datasets],
          ['base questions', stats.baseQuestions],
          ['passages', stats.passages],
          ['corpora', stats.corpora],
          ['instances', stats.instances],
          ...Object.entries(stats.instancesByType).map(([k, v]) => [`  type ${k}`, v]),
          ...Object.entries(stats.instancesByStatus).map(([k, v]) => [`  status ${k}`, v]),
          ['interpretations', stats.interpretations],
          ['long answers', stats.longAnswers],
        ].map(([k, v]) => [String(k), Number(v).toLocaleString('en-US')]),
        { header: false },
      );
    }),
  );

  withCommon(
    program
      .command('export')
      .description('export instances (and base questions without any) as awb-instance/1 JSON Lines')
      .option('--format <format>', `output format ${choices(EXPORT_FORMATS)}`)
      .option('--out <file>', 'where to write')
      .option('--dataset <name...>', 'only these datasets (repeatable)'),
  ).action((options: CommonOptions & { format?: string; out?: string; dataset?: string[] }) =>
    withClient(options, async (client) => {
      const report = await client.runJob(
        'dataset:export',
        { path: options.out as string, format: options.format as never, datasets: options.dataset },
        `Exporting to ${path.basename(options.out ?? '')}`,
      );
      if (options.json) printJson(report);
      else process.stdout.write(`Wrote ${report.records} records (${report.instances} instances, ${report.baseQuestions} base questions) to ${report.file}\n`);
    }),
  );

  withCommon(program.command('seed-demo').description('import the bundled demo data into a new, empty database')).action((options: CommonOptions) =>
    withClient(options, async (client) => {
      const reports = await client.call('dataset:seed-demo', {});
      if (options.json) printJson(reports);
      else process.stdout.write(reports.length ? reports.map((r) => `${r.dataset}: ${r.imported} records`).join('\n') + '\n' : 'Nothing to do: the database already holds data or was seeded before.\n');
    }),
  );

  const dataset = program.command('dataset').description('datasets: list them with their licences');
  withCommon(dataset.command('list').description('datasets with their base questions, instances, licence and attribution')).action((options: CommonOptions) =>
    withClient(options, async (client) => {
      const list = await client.call('dataset:list', {});
      if (options.json) return printJson(list);
      printTable(
        ['id', 'dataset', 'base questions', 'instances', 'licence'],
        list.map((d) => [String(d.id), d.name, String(d.baseQuestions), String(d.instances), d.licence]),
      );
    }),
  );

  const instance = program.command('instance').description('instances: list (filter, search, sort, page) and show one');
  withCommon(
    instance
      .command('list')
      .description('a page of instances')
      .option('--type <type...>', `ambiguity types ${choices(AMBIGUITY_TYPES)}`)
      .option('--status <status...>', `statuses ${choices(INSTANCE_STATUSES)}`)
      .option('--dataset <id...>', 'dataset ids (see awb dataset list)', list(integer))
      .option('--hops <n...>', 'numbers of hops', list(integer))
      .option('--search <text>', 'full-text search over questions, interpretations and answers')
      .option('--sort <column>', `sort column ${choices(INSTANCE_SORT_COLUMNS)}`)
      .option('--direction <dir>', 'asc or desc')
      .option('--offset <n>', 'rows to skip', integer)
      .option('--limit <n>', 'rows (default 100, at most 500)', integer),
  ).action(
    (
      options: CommonOptions & { type?: string[]; status?: string[]; dataset?: number[][]; hops?: number[][]; search?: string; sort?: string; direction?: string; offset?: number; limit?: number },
    ) =>
      withClient(options, async (client) => {
        const page = await client.call('instance:list', {
          types: options.type as never,
          statuses: options.status as never,
          datasets: options.dataset?.flat(),
          hops: options.hops?.flat(),
          search: options.search,
          sort: options.sort as never,
          direction: options.direction as never,
          offset: options.offset,
          limit: options.limit,
        });
        if (options.json) return printJson(page);
        printTable(
          ['id', 'type', 'status', 'hops', 'dataset', 'question'],
          page.rows.map((r) => [String(r.id), r.ambiguityType, r.status, String(r.hops ?? '–'), r.dataset, r.question.slice(0, 100)]),
        );
      }),
  );
  withCommon(instance.command('show').description('one instance: question, interpretations, evidence, answers').argument('[id]', 'instance id', integer)).action(
    (id: number | undefined, options: CommonOptions) =>
      withClient(options, async (client) => {
        const detail = await client.call('instance:get', { id: id as number });
        if (options.json) printJson(detail);
        else printInstance(detail);
      }),
  );
}

function printInstance(detail: InstanceDetail): void {
  const lines = [`#${detail.id} [${detail.ambiguityType}] ${detail.status}: ${detail.baseQuestion.question}`];
  for (const i of detail.interpretations) {
    lines.push(`  ${i.position + 1}. ${i.clarifiedQuestion ?? i.condition ?? '(no question)'} → ${i.shortAnswer?.text ?? '–'}`);
  }
  for (const a of detail.longAnswers) lines.push(`  long answer: ${a.text}`);
  process.stdout.write(`${lines.join('\n')}\n`);
}

function addCorpusCommands(program: Command): void {
  const corpus = program.command('corpus').description('passage corpora: import, embed, list');
  withCommon(
    corpus
      .command('import')
      .description('import passages into a corpus (checked first, written in resumable batches)')
      .argument('[file]', 'the file to import')
      .option('--format <format>', `the file format ${choices(CORPUS_FORMATS)}`)
      .option('--corpus <name>', 'corpus name (default: the file name)')
      .option('--skip-invalid', 'leave out broken records instead of refusing the file')
      .option('--target-words <n>', 'passage length for wikipedia-jsonl (default 100)', integer),
  ).action((file: string | undefined, options: CommonOptions & { format?: string; corpus?: string; skipInvalid?: boolean; targetWords?: number }) =>
    withClient(options, async (client) => {
      const report = await client.runJob(
        'corpus:import',
        { path: file as string, format: options.format as never, corpus: options.corpus, skipInvalid: options.skipInvalid, targetWords: options.targetWords },
        `Importing ${path.basename(file ?? '')}`,
      );
      if (options.json) printJson(report);
      else {
        process.stdout.write(
          `${report.file} into corpus "${report.corpus}": ${report.records} records, ${report.passagesCreated} new passages, ${report.duplicates} already there` +
            (report.resumedFrom ? ` (resumed after record ${report.resumedFrom})` : '') +
            ` in ${report.seconds} s\n`,
        );
        for (const e of report.errors) process.stdout.write(`  ${e.location}${e.field ? ` · ${e.field}` : ''}: ${e.message}\n`);
        if (!report.committed) process.stdout.write('  Nothing was imported: fix the file, or pass --skip-invalid.\n');
      }
      if (!report.committed) process.exitCode = 1;
    }),
  );

  withCommon(
    corpus
      .command('embed')
      .description('compute vectors for every passage of a corpus (resumable)')
      .option('--corpus <name>', 'the corpus')
      .option('--provider <provider>', `${choices(EMBEDDING_PROVIDERS)}: offline is built in and lexical; openai is any OpenAI-compatible endpoint (default offline)`)
      .option('--model <model>', 'remote model name (openai provider)')
      .option('--base-url <url>', 'endpoint base URL, e.g. http://localhost:11434/v1 (default: OpenAI; AWB_BASE_URL overrides)')
      .option('--api-key-env <name>', 'environment variable holding the API key (default OPENAI_API_KEY)')
      .option('--dimensions <n>', 'vector dimension (offline default 768)', integer)
      .option('--refit', 'offline: recount document frequencies and re-embed every passage'),
  ).action(
    (options: CommonOptions & { corpus?: string; provider?: string; model?: string; baseUrl?: string; apiKeyEnv?: string; dimensions?: number; refit?: boolean }) =>
      withClient(options, async (client) => {
        const report = await client.runJob(
          'corpus:embed',
          {
            corpus: options.corpus as string,
            provider: options.provider as never,
            model: options.model,
            baseURL: options.baseUrl,
            apiKeyEnv: options.apiKeyEnv,
            dimensions: options.dimensions,
            refit: options.refit,
          },
          `Embedding ${options.corpus ?? ''}`,
        );
        if (options.json) printJson(report);
        else process.stdout.write(`${report.model}: embedded ${report.embedded} passages of "${report.corpus}" (${report.already} already had vectors) in ${report.seconds} s\n`);
      }),
  );

  withCommon(corpus.command('list').description('corpora with their passages and vectors')).action((options: CommonOptions) =>
    withClient(options, async (client) => {
      const corpora = await client.call('corpus:list', {});
      if (options.json) return printJson(corpora);
      for (const c of corpora) process.stdout.write(`${c.name}: ${c.passages} passages${c.models.map((m) => `; ${m.name} ${m.vectors} vectors`).join('')}\n`);
    }),
  );
}

function addRetrievalCommands(program: Command): void {
  withCommon(
    program
      .command('search')
      .description('search passages with BM25, dense vectors, or both fused (reciprocal rank fusion)')
      .option('--query <text>', 'the question or keywords')
      .option('--mode <mode>', `ranking ${choices(SEARCH_MODES)} (default hybrid)`)
      .option('--k <n>', 'how many passages (default 10)', integer)
      .option('--corpus <name>', 'search one corpus (default: all)')
      .option('--model <name>', 'embedding model (default: the one covering the corpus)')
      .option('--hyde <passage>', 'HyDE: a hypothetical answer passage to use as the dense query')
      .option('--rrf-k <n>', 'reciprocal rank fusion constant (default 60)', number),
  ).action((options: CommonOptions & { query?: string; mode?: string; k?: number; corpus?: string; model?: string; hyde?: string; rrfK?: number }) =>
    withClient(options, async (client) => {
      const result = await client.call('retrieval:search', {
        query: options.query as string,
        mode: options.mode as never,
        k: options.k,
        corpus: options.corpus,
        model: options.model,
        hyde: options.hyde,
        rrfK: options.rrfK,
      });
      if (options.json) return printJson(result);
      for (const hit of result.hits) {
        const parts = [hit.bm25 ? `bm25 #${hit.bm25.rank} ${hit.bm25.score.toFixed(2)}` : '', hit.dense ? `dense #${hit.dense.rank} ${hit.dense.score.toFixed(3)}` : '']
          .filter(Boolean)
          .join(', ');
        process.stdout.write(`${String(hit.rank).padStart(3)}. ${hit.passage.title} [${parts}]\n     ${hit.passage.text.slice(0, 160).replace(/\s+/g, ' ')}…\n`);
      }
      for (const note of result.notes) process.stdout.write(`note: ${note}\n`);
    }),
  );

  withCommon(
    program
      .command('cues')
      .description('ambiguity cues of a question: hits, KL divergence, relax-delta ratio, retrieval geometry')
      .option('--query <text>', 'the question')
      .option('--corpus <name>', 'corpus (default: all)')
      .option('--model <name>', 'embedding model for the geometry cues')
      .option('--k <n>', 'top-k passages (default 10)', integer)
      .option('--variance-threshold <x>', 'ADF τ_var (default 0.25)', number)
      .option('--separation-threshold <x>', 'ADF τ_sep (default 0.1)', number),
  ).action(
    (options: CommonOptions & { query?: string; corpus?: string; model?: string; k?: number; varianceThreshold?: number; separationThreshold?: number }) =>
      withClient(options, async (client) => {
        printJson(
          await client.call('retrieval:cues', {
            query: options.query as string,
            corpus: options.corpus,
            model: options.model,
            k: options.k,
            varianceThreshold: options.varianceThreshold,
            separationThreshold: options.separationThreshold,
          }),
        );
      }),
  );

  withCommon(
    program
      .command('evidence')
      .description("MARCH evidence collection: pool each sub-question's passages, back-fill, re-rank by the clarified question")
      .option('--question <text>', 'the clarified question')
      .option('--sub <text...>', 'its sub-questions, in order')
      .option('--k <n>', 'passages per retrieval (default 10)', integer)
      .option('--mode <mode>', `ranking ${choices(SEARCH_MODES)} (default hybrid)`)
      .option('--corpus <name>', 'corpus (default: all)')
      .option('--model <name>', 'embedding model'),
  ).action((options: CommonOptions & { question?: string; sub?: string[]; k?: number; mode?: string; corpus?: string; model?: string }) =>
    withClient(options, async (client) => {
      const passages: CollectedPassage[] = await client.call('retrieval:evidence', {
        question: options.question as string,
        subQuestions: options.sub,
        k: options.k,
        mode: options.mode as never,
        corpus: options.corpus,
        model: options.model,
      });
      if (options.json) printJson(passages);
      else for (const p of passages) process.stdout.write(`${String(p.rank).padStart(3)}. ${p.score.toFixed(3)} ${p.passage.title} (${p.origins.join(', ')})\n`);
    }),
  );

  withCommon(
    program
      .command('retrieval-eval')
      .description('recall@k and nDCG@k of the gold supporting paragraphs of MuSiQue questions (and sub-questions)')
      .option('--questions <file>', 'MuSiQue questions (JSON array or JSONL)')
      .option('--mode <mode>', `ranking ${choices(SEARCH_MODES)} (default hybrid)`)
      .option('--k <n>', 'cut-off (default 10)', integer)
      .option('--corpus <name>', 'corpus holding the paragraphs (default: "eval: <file name>")')
      .option('--model <name>', 'embedding model')
      .option('--build-corpus', "import the questions' paragraphs into the corpus first (and embed them offline if needed)"),
  ).action((options: CommonOptions & { questions?: string; mode?: string; k?: number; corpus?: string; model?: string; buildCorpus?: boolean }) =>
    withClient(options, async (client) => {
      const report = await client.runJob(
        'retrieval:evaluate',
        { questions: options.questions as string, mode: options.mode as never, k: options.k, corpus: options.corpus, model: options.model, buildCorpus: options.buildCorpus },
        'Evaluating',
      );
      if (options.json) printJson(report);
      else
        process.stdout.write(
          `${report.mode} k=${report.k} over "${report.corpus}": ${report.questions} questions, recall@k ${report.recallAtK}, nDCG@k ${report.ndcgAtK}; ${report.subquestions} sub-questions, recall@k ${report.subquestionRecallAtK}\n`,
        );
    }),
  );
}

function addServeCommand(program: Command): void {
  withCommon(
    program
      .command('serve')
      .description('serve the UI and the API over HTTP (browser mode)')
      .option('--port <n>', 'port (0 picks a free one; default 4310, or any free one when it is taken)', integer)
      .option('--host <host>', 'interface to listen on', '127.0.0.1')
      .option('--team', 'team mode even on loopback: everyone signs in (any other --host needs accounts anyway)')
      .option('--seed-demo', 'seed a new, empty database with the bundled demo data')
      .option('--pack <file>', 'open an offline annotation pack (judging needs nothing else)')
      .argument('[pack]', 'same as --pack'),
  ).action(async (packArgument: string | undefined, options: CommonOptions & { port?: number; host: string; seedDemo?: boolean; pack?: string; team?: boolean }) => {
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
function addCallCommand(program: Command): void {
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
