import path from 'node:path';
import type { Command } from 'commander';
import { CORPUS_FORMATS, EMBEDDING_PROVIDERS } from '../../shared/api';
import { withClient } from './client';
import { choices, integer, printJson, withCommon, type CommonOptions } from './common';

/** `awb corpus`: passage corpora, imported, embedded and listed. */
export function addCorpusCommands(program: Command): void {
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
