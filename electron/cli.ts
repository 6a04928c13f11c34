import path from 'node:path';
import { Command, Option } from 'commander';
import { openDatabase } from '../db/connection';
import { getStats } from '../db/queries/stats';
import { AppError, SEARCH_MODES, type SearchMode } from '../shared/api';
import { IMPORT_FORMATS, type ImportFormat } from '../shared/domain';
import { rendererDir, userDataDir } from './paths';
import { addAnnotationCommands } from './cli-annotation';
import { addPipelineCommands } from './cli-pipeline';
import {
  databasePath,
  parseMegabytes,
  parsePositiveInt,
  printImportReport,
  printJson,
  progressLine,
  version,
  withCommon,
  type CommonOptions,
} from './cli-common';
import { seedDemoOnce } from './services/demo';
import { exportJsonl } from './services/export';
import { importFile } from './services/import/import-file';
import { createHandlers, Workbench } from './services';
import { CORPUS_FORMATS, importCorpus, type CorpusFormat } from './services/corpus/import-corpus';
import { ambiguityCues } from './services/retrieval/cues';
import { collectEvidence } from './services/retrieval/evidence';
import { evaluateRetrieval } from './services/retrieval/evaluate';
import { embedCorpus } from './services/retrieval/models';
import { EmbeddedRetriever } from './services/retrieval/search';
import { listCorpusSummaries } from './services/retrieval/corpora';
import { readPack, resultsPath } from './services/annotation/packs';
import { createHttpServer, listen } from './transport/http';

/**
 * `awb`: every service reachable without a window. Each command takes `--db PATH` (default:
 * the app's own database in the user data directory) and `--json` for machine-readable output.
 * Exit codes: 0 success, 1 the work failed (invalid input, nothing imported), 2 bad usage.
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

  withCommon(
    program
      .command('import')
      .description('import a file of base questions or instances (all or nothing, unless --skip-invalid)')
      .argument('<file>', 'the file to import (JSON array, JSON Lines, or the official ASQA splits object)')
      .addOption(new Option('--format <format>', 'the file format').choices(IMPORT_FORMATS).makeOptionMandatory())
      .option('--dataset <name>', 'dataset name (default: the file name; for awb files, each record\'s own)')
      .option('--skip-invalid', 'import the valid records and write the invalid ones to a rejects report')
      .option('--rejects <file>', 'where the rejects report goes (default: FILE.rejects.jsonl)')
      .option('--max-record-mb <n>', 'largest record accepted, in MB', parseMegabytes, 16),
  ).action(
    async (
      file: string,
      options: CommonOptions & { format: ImportFormat; dataset?: string; skipInvalid?: boolean; rejects?: string; maxRecordMb: number },
    ) => {
      const db = openDatabase(databasePath(options));
      const progress = progressLine(`Importing ${path.basename(file)}`);
      const controller = new AbortController();
      const onSignal = () => controller.abort();
      process.once('SIGINT', onSignal);
      try {
        const report = await importFile(db, {
          file,
          format: options.format,
          ...(options.dataset ? { dataset: options.dataset } : {}),
          skipInvalid: options.skipInvalid ?? false,
          ...(options.rejects ? { rejectsFile: options.rejects } : {}),
          maxRecordBytes: Math.round(options.maxRecordMb * 1024 * 1024),
          signal: controller.signal,
          onProgress: ({ bytes, totalBytes }) => progress.update(bytes, totalBytes),
        });
        progress.done();
        if (options.json) printJson(report);
        else printImportReport(report);
        // Nothing imported because every record was invalid is a failure, --skip-invalid or not.
        if (!report.committed || (report.rejected > 0 && report.imported + report.duplicates === 0)) process.exitCode = 1;
      } finally {
        process.off('SIGINT', onSignal);
        db.close();
      }
    },
  );

  withCommon(program.command('stats').description('count datasets, base questions, passages, instances and interpretations')).action(
    (options: CommonOptions) => {
      const db = openDatabase(databasePath(options));
      try {
        const stats = getStats(db);
        if (options.json) {
          printJson(stats);
          return;
        }
        const rows: [string, number][] = [
          ['datasets', stats.datasets],
          ['base questions', stats.base_questions],
          ['passages', stats.passages],
          ['corpora', stats.corpora],
          ['instances', stats.instances],
          ...Object.entries(stats.instances_by_type).map(([k, v]) => [`  type ${k}`, v] as [string, number]),
          ...Object.entries(stats.instances_by_status).map(([k, v]) => [`  status ${k}`, v] as [string, number]),
          ['interpretations', stats.interpretations],
          ['long answers', stats.long_answers],
        ];
        process.stdout.write(`${rows.map(([k, v]) => `${k.padEnd(20)} ${v.toLocaleString('en-US')}`).join('\n')}\n`);
      } finally {
        db.close();
      }
    },
  );

  withCommon(
    program
      .command('export')
      .description('export instances (and base questions without any) as awb-instance/1 JSON Lines')
      .addOption(new Option('--format <format>', 'output format').choices(['jsonl']).default('jsonl'))
      .requiredOption('--out <file>', 'where to write')
      .option('--dataset <name...>', 'only these datasets (repeatable)'),
  ).action(async (options: CommonOptions & { out: string; dataset?: string[] }) => {
    const db = openDatabase(databasePath(options));
    const progress = progressLine(`Exporting to ${path.basename(options.out)}`);
    try {
      const report = await exportJsonl(db, {
        file: options.out,
        datasets: options.dataset ?? [],
        onProgress: (done, total) => progress.update(done, total),
      });
      progress.done();
      if (options.json) printJson(report);
      else process.stdout.write(`Wrote ${report.records} records (${report.instances} instances, ${report.base_questions} base questions) to ${report.file}\n`);
    } finally {
      db.close();
    }
  });

  withCommon(program.command('seed-demo').description('import the bundled demo data into a new, empty database')).action(
    async (options: CommonOptions) => {
      const db = openDatabase(databasePath(options));
      try {
        const reports = await seedDemoOnce(db);
        if (options.json) printJson(reports);
        else process.stdout.write(reports.length ? reports.map((r) => `${r.dataset}: ${r.imported} records`).join('\n') + '\n' : 'Nothing to do: the database already holds data or was seeded before.\n');
      } finally {
        db.close();
      }
    },
  );

  withCommon(
    program
      .command('serve')
      .description('serve the UI and the API over HTTP (browser mode)')
      .option('--port <n>', 'port (0 picks a free one)', parsePositiveInt, 4310)
      .option('--host <host>', 'interface to listen on', '127.0.0.1')
      .option('--seed-demo', 'seed a new, empty database with the bundled demo data')
      .option('--pack <file>', 'open an offline annotation pack (judging needs nothing else)')
      .argument('[pack]', 'same as --pack'),
  ).action(async (packArgument: string | undefined, options: CommonOptions & { port: number; host: string; seedDemo?: boolean; pack?: string }, command: Command) => {
    const log = (message: string) => process.stderr.write(`${message}\n`);
    const pack = options.pack ?? packArgument;
    if (pack) readPack(pack);
    const workbench = new Workbench({ databasePath: databasePath(options), mode: 'browser', version: version(), log, ...(pack ? { pack: path.resolve(pack) } : {}) });
    if (options.seedDemo) {
      const reports = await seedDemoOnce(workbench.db);
      for (const r of reports) log(`Seeded ${r.dataset}: ${r.imported} records`);
    }
    const server = createHttpServer({
      handlers: createHandlers(workbench),
      events: workbench.events,
      staticDir: rendererDir(),
      uploadDir: path.join(userDataDir(), 'uploads'),
      host: options.host,
      port: options.port,
    });
    let url: string;
    try {
      try {
        url = await listen(server, options.host, options.port);
      } catch (error) {
        // The default port is taken (another workbench?): take any free one instead.
        const busy = (error as { code?: string }).code === 'EADDRINUSE';
        if (!busy || command.getOptionValueSource('port') !== 'default') throw error;
        url = await listen(server, options.host, 0);
      }
    } catch (error) {
      workbench.close();
      throw new AppError('conflict', `Cannot listen on ${options.host}:${options.port}: ${(error as Error).message}`);
    }
    if (options.json) printJson({ url, database: workbench.options.databasePath });
    else if (pack) process.stdout.write(`Ambiguity Workbench is running at ${url}\nPack: ${path.resolve(pack)} (judgments are saved to ${resultsPath(path.resolve(pack))})\nPress Ctrl+C to stop.\n`);
    else process.stdout.write(`Ambiguity Workbench is running at ${url}\nDatabase: ${workbench.options.databasePath}\nPress Ctrl+C to stop.\n`);
    const stop = () => {
      server.close();
      server.closeAllConnections();
      workbench.close();
      process.exit(0);
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });

  const corpus = program.command('corpus').description('passage corpora: import, embed, list');
  withCommon(
    corpus
      .command('import')
      .description('import passages into a corpus (checked first, written in resumable batches)')
      .argument('<file>', 'the file to import')
      .addOption(new Option('--format <format>', 'the file format').choices(CORPUS_FORMATS).makeOptionMandatory())
      .option('--corpus <name>', 'corpus name (default: the file name)')
      .option('--skip-invalid', 'leave out broken records instead of refusing the file')
      .option('--target-words <n>', 'passage length for wikipedia-jsonl', (v) => parsePositiveInt(v), 100),
  ).action(async (file: string, options: CommonOptions & { format: CorpusFormat; corpus?: string; skipInvalid?: boolean; targetWords: number }) => {
    const db = openDatabase(databasePath(options));
    const progress = progressLine(`Importing ${path.basename(file)}`);
    try {
      const report = await importCorpus(db, {
        file,
        format: options.format,
        ...(options.corpus ? { corpus: options.corpus } : {}),
        skipInvalid: options.skipInvalid ?? false,
        targetWords: options.targetWords,
        onProgress: (done, total) => progress.update(done, total),
      });
      progress.done();
      if (options.json) printJson(report);
      else {
        process.stdout.write(
          `${report.file} into corpus "${report.corpus}": ${report.records} records, ${report.passages_created} new passages, ${report.duplicates} already there` +
            (report.resumed_from ? ` (resumed after record ${report.resumed_from})` : '') +
            ` in ${report.seconds} s\n`,
        );
        for (const e of report.errors) process.stdout.write(`  ${e.location}${e.field ? ` · ${e.field}` : ''}: ${e.message}\n`);
        if (!report.committed) process.stdout.write('  Nothing was imported: fix the file, or pass --skip-invalid.\n');
      }
      if (!report.committed) process.exitCode = 1;
    } finally {
      db.close();
    }
  });

  withCommon(
    corpus
      .command('embed')
      .description('compute vectors for every passage of a corpus (resumable)')
      .requiredOption('--corpus <name>', 'the corpus')
      .addOption(new Option('--provider <provider>', 'offline (built in, lexical) or openai (any OpenAI-compatible endpoint)').choices(['offline', 'openai']).default('offline'))
      .option('--model <model>', 'remote model name (openai provider)')
      .option('--base-url <url>', 'endpoint base URL, e.g. http://localhost:11434/v1 (default: OpenAI; AWB_BASE_URL overrides)')
      .option('--api-key-env <name>', 'environment variable holding the API key', 'OPENAI_API_KEY')
      .option('--dimensions <n>', 'vector dimension (offline default 768)', (v) => parsePositiveInt(v))
      .option('--refit', 'offline: recount document frequencies and re-embed every passage'),
  ).action(
    async (
      options: CommonOptions & { corpus: string; provider: 'offline' | 'openai'; model?: string; baseUrl?: string; apiKeyEnv: string; dimensions?: number; refit?: boolean },
    ) => {
      const db = openDatabase(databasePath(options));
      const progress = progressLine(`Embedding ${options.corpus}`);
      const controller = new AbortController();
      const onSignal = () => controller.abort();
      process.once('SIGINT', onSignal);
      try {
        const report = await embedCorpus(db, {
          corpus: options.corpus,
          provider: options.provider,
          ...(options.model ? { model: options.model } : {}),
          ...(options.baseUrl ? { baseURL: options.baseUrl } : {}),
          apiKeyEnv: options.apiKeyEnv,
          ...(options.dimensions ? { dimensions: options.dimensions } : {}),
          refit: options.refit ?? false,
          signal: controller.signal,
          onProgress: (done, total) => progress.update(done, total),
        });
        progress.done();
        if (options.json) printJson(report);
        else process.stdout.write(`${report.model}: embedded ${report.embedded} passages of "${report.corpus}" (${report.already} already had vectors) in ${report.seconds} s\n`);
      } finally {
        process.off('SIGINT', onSignal);
        db.close();
      }
    },
  );

  withCommon(corpus.command('list').description('corpora with their passages and vectors')).action((options: CommonOptions) => {
    const db = openDatabase(databasePath(options));
    try {
      const list = listCorpusSummaries(db);
      if (options.json) printJson(list);
      else
        for (const c of list) {
          process.stdout.write(`${c.name}: ${c.passages} passages${c.models.map((m) => `; ${m.name} ${m.vectors} vectors`).join('')}\n`);
        }
    } finally {
      db.close();
    }
  });

  withCommon(
    program
      .command('search')
      .description('search passages with BM25, dense vectors, or both fused (reciprocal rank fusion)')
      .requiredOption('--query <text>', 'the question or keywords')
      .addOption(new Option('--mode <mode>', 'ranking').choices(SEARCH_MODES).default('hybrid'))
      .option('--k <n>', 'how many passages', (v) => parsePositiveInt(v), 10)
      .option('--corpus <name>', 'search one corpus (default: all)')
      .option('--model <name>', 'embedding model (default: the one covering the corpus)')
      .option('--hyde <passage>', 'HyDE: a hypothetical answer passage to use as the dense query')
      .option('--rrf-k <n>', 'reciprocal rank fusion constant', (v) => parsePositiveInt(v), 60),
  ).action(async (options: CommonOptions & { query: string; mode: SearchMode; k: number; corpus?: string; model?: string; hyde?: string; rrfK: number }) => {
    const db = openDatabase(databasePath(options));
    try {
      const result = await new EmbeddedRetriever(db).search({
        query: options.query,
        mode: options.mode,
        k: options.k,
        corpus: options.corpus,
        model: options.model,
        hyde: options.hyde,
        rrfK: options.rrfK,
      });
      if (options.json) printJson(result);
      else {
        for (const hit of result.hits) {
          const parts = [hit.bm25 ? `bm25 #${hit.bm25.rank} ${hit.bm25.score.toFixed(2)}` : '', hit.dense ? `dense #${hit.dense.rank} ${hit.dense.score.toFixed(3)}` : '']
            .filter(Boolean)
            .join(', ');
          process.stdout.write(`${String(hit.rank).padStart(3)}. ${hit.passage.title} [${parts}]\n     ${hit.passage.text.slice(0, 160).replace(/\s+/g, ' ')}…\n`);
        }
        for (const note of result.notes) process.stdout.write(`note: ${note}\n`);
      }
    } finally {
      db.close();
    }
  });

  withCommon(
    program
      .command('cues')
      .description('ambiguity cues of a question: hits, KL divergence, relax-delta ratio, retrieval geometry')
      .requiredOption('--query <text>', 'the question')
      .option('--corpus <name>', 'corpus (default: all)')
      .option('--model <name>', 'embedding model for the geometry cues')
      .option('--k <n>', 'top-k passages', (v) => parsePositiveInt(v), 10)
      .option('--variance-threshold <x>', 'ADF τ_var', Number, 0.25)
      .option('--separation-threshold <x>', 'ADF τ_sep', Number, 0.1),
  ).action(async (options: CommonOptions & { query: string; corpus?: string; model?: string; k: number; varianceThreshold: number; separationThreshold: number }) => {
    const db = openDatabase(databasePath(options));
    try {
      const cues = await ambiguityCues(db, new EmbeddedRetriever(db), {
        query: options.query,
        corpus: options.corpus,
        model: options.model,
        k: options.k,
        varianceThreshold: options.varianceThreshold,
        separationThreshold: options.separationThreshold,
      });
      printJson(cues);
    } finally {
      db.close();
    }
  });

  withCommon(
    program
      .command('evidence')
      .description("MARCH evidence collection: pool each sub-question's passages, back-fill, re-rank by the clarified question")
      .requiredOption('--question <text>', 'the clarified question')
      .option('--sub <text...>', 'its sub-questions, in order')
      .option('--k <n>', 'passages per retrieval', (v) => parsePositiveInt(v), 10)
      .addOption(new Option('--mode <mode>', 'ranking').choices(SEARCH_MODES).default('hybrid'))
      .option('--corpus <name>', 'corpus (default: all)'),
  ).action(async (options: CommonOptions & { question: string; sub?: string[]; k: number; mode: SearchMode; corpus?: string }) => {
    const db = openDatabase(databasePath(options));
    try {
      const passages = await collectEvidence(new EmbeddedRetriever(db), {
        clarifiedQuestion: options.question,
        subQuestions: options.sub ?? [],
        k: options.k,
        mode: options.mode,
        ...(options.corpus ? { corpus: options.corpus } : {}),
      });
      if (options.json) printJson(passages);
      else for (const p of passages) process.stdout.write(`${String(p.rank).padStart(3)}. ${p.score.toFixed(3)} ${p.passage.title} (${p.origins.join(', ')})\n`);
    } finally {
      db.close();
    }
  });

  withCommon(
    program
      .command('retrieval-eval')
      .description('recall@k and nDCG@k of the gold supporting paragraphs of MuSiQue questions (and sub-questions)')
      .requiredOption('--questions <file>', 'MuSiQue questions (JSON array or JSONL)')
      .addOption(new Option('--mode <mode>', 'ranking').choices(SEARCH_MODES).default('hybrid'))
      .option('--k <n>', 'cut-off', (v) => parsePositiveInt(v), 10)
      .option('--corpus <name>', 'corpus holding the paragraphs (default: "eval: <file name>")')
      .option('--model <name>', 'embedding model')
      .option('--build-corpus', "import the questions' paragraphs into the corpus first (and embed them offline if needed)"),
  ).action(async (options: CommonOptions & { questions: string; mode: SearchMode; k: number; corpus?: string; model?: string; buildCorpus?: boolean }) => {
    const db = openDatabase(databasePath(options));
    const progress = progressLine('Evaluating');
    try {
      const report = await evaluateRetrieval(db, new EmbeddedRetriever(db), {
        questions: options.questions,
        mode: options.mode,
        k: options.k,
        ...(options.corpus ? { corpus: options.corpus } : {}),
        ...(options.model ? { model: options.model } : {}),
        buildCorpus: options.buildCorpus ?? false,
        onProgress: (done, total) => progress.update(done, total),
      });
      progress.done();
      if (options.json) printJson(report);
      else
        process.stdout.write(
          `${report.mode} k=${report.k} over "${report.corpus}": ${report.questions} questions, recall@k ${report.recall_at_k}, nDCG@k ${report.ndcg_at_k}; ${report.subquestions} sub-questions, recall@k ${report.subquestion_recall_at_k}\n`,
        );
    } finally {
      db.close();
    }
  });

  addAnnotationCommands(program);
  addPipelineCommands(program);
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
    const code = error instanceof AppError ? error.code : 'internal';
    if (json) process.stdout.write(`${JSON.stringify({ error: { code, message } }, null, 2)}\n`);
    else process.stderr.write(`awb: ${message}\n`);
    process.exitCode = 1;
  }
}
