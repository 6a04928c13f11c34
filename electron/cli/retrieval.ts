import type { Command } from 'commander';
import { SEARCH_LAYERS, SEARCH_MODES, type CollectedPassage } from '../../shared/api';
import { withClient } from './client';
import { choices, integer, list, number, printJson, withCommon, type CommonOptions } from './common';

/** `awb search`, `cues`, `evidence`, `retrieval-eval`: retrieval over the corpora. */
export function addRetrievalCommands(program: Command): void {
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
      .option('--rrf-k <n>', 'reciprocal rank fusion constant (default 60)', number)
      .option('--layers <list>', `what to search, comma-separated ${choices(SEARCH_LAYERS)} (default passages; qa: the corpus's QA layer)`, list(String)),
  ).action((options: CommonOptions & { query?: string; mode?: string; k?: number; corpus?: string; model?: string; hyde?: string; rrfK?: number; layers?: string[] }) =>
    withClient(options, async (client) => {
      const result = await client.call('retrieval:search', {
        query: options.query as string,
        mode: options.mode as never,
        k: options.k,
        corpus: options.corpus,
        model: options.model,
        hyde: options.hyde,
        rrfK: options.rrfK,
        layers: options.layers as never,
      });
      if (options.json) return printJson(result);
      for (const hit of result.hits) {
        const parts = [hit.bm25 ? `bm25 #${hit.bm25.rank} ${hit.bm25.score.toFixed(2)}` : '', hit.dense ? `dense #${hit.dense.rank} ${hit.dense.score.toFixed(3)}` : '']
          .filter(Boolean)
          .join(', ');
        if (hit.qa) process.stdout.write(`${String(hit.rank).padStart(3)}. Q: ${hit.qa.question} [QA layer, ${parts}]\n     A: ${hit.qa.answer} (from "${hit.qa.source.title}")\n`);
        else process.stdout.write(`${String(hit.rank).padStart(3)}. ${hit.passage.title} [${parts}]\n     ${hit.passage.text.slice(0, 160).replace(/\s+/g, ' ')}…\n`);
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
