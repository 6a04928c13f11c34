import type { Command } from 'commander';
import type { EvalComparison, EvalRunSummary } from '../../shared/api';
import { EVAL_METHODS } from '../../shared/eval/methods';
import { metricLabel, runStatusLabel } from '../../shared/eval/labels';
import type { MetricSummary } from '../../shared/eval/metrics';
import { withClient } from './client';
import { choices, integer, number, printJson, printTable, withCommon, type CommonOptions } from './common';

/** `awb eval run|list|show|compare`: evaluation runs. */

/** `endpoint/model` → a model reference (the model name may itself contain slashes). */
function modelRef(value: string): { endpoint: string; model: string } {
  const slash = value.indexOf('/');
  return slash === -1 ? { endpoint: '', model: value } : { endpoint: value.slice(0, slash), model: value.slice(slash + 1) };
}

const SHOWN = ['str_em', 'disambig_f1', 'rouge_l', 'dr', 'token_f1', 'd_f1', 'citation_precision', 'judge_mean'];

function cell(m: MetricSummary | undefined): string {
  if (!m || m.value === null) return '–';
  return `${m.value.toFixed(2)}${m.ci ? ` [${m.ci.low.toFixed(1)}, ${m.ci.high.toFixed(1)}]` : ''}`;
}

function printRun(run: EvalRunSummary): void {
  const lines = [
    `Run ${run.id}: ${run.methodLabel} × ${run.model} on ${run.source}: ${runStatusLabel(run)}${run.error ? ` (${run.error})` : ''}`,
    `  items: ${run.total}; scored (n) ${run.done}, failed ${run.failed} (left out of every mean)` + (run.corpus ? `; corpus ${run.corpus}, ${run.retrievalMode}, k=${run.k}` : ''),
    `  calls: ${run.calls} sent, ${run.cachedCalls} from the cache; ${run.promptTokens} tokens in, ${run.completionTokens} out; $${run.costUsd.toFixed(4)}`,
  ];
  if (run.usage?.n) {
    const l = run.usage.latencyMs;
    lines.push(
      `  per query: latency p50 ${(l.p50 ?? 0).toFixed(0)} ms, p95 ${(l.p95 ?? 0).toFixed(0)} ms, p99 ${(l.p99 ?? 0).toFixed(0)} ms; ${(run.usage.tokensPerQuery ?? 0).toFixed(0)} tokens, $${(run.usage.costPerQuery ?? 0).toFixed(5)}`,
    );
  }
  lines.push(`  settings: ${describeSettings(run)}`);
  if (run.reader) lines.push(`  ${metricLabel('disambig_f1')} reader: ${run.reader}${run.readerErrors ? `; reader errors on ${run.readerErrors} item${run.readerErrors === 1 ? '' : 's'} (their ${metricLabel('disambig_f1')} left out)` : ''}`);
  if (run.judge) lines.push(`  judge: ${run.judge}`);
  for (const note of run.notes) lines.push(`  note: ${note}`);
  process.stdout.write(`${lines.join('\n')}\n`);
  const shown = SHOWN.filter((m) => run.metrics[m]);
  if (shown.length === 0) return;
  printTable(['', ...shown.map(metricLabel)], [['all', ...shown.map((m) => cell(run.metrics[m]))], ...Object.entries(run.byType).map(([type, metrics]) => [type, ...shown.map((m) => cell(metrics[m]))])]);
}

/** The settings that matter for the run's method, on one line. */
function describeSettings(run: EvalRunSummary): string {
  const s = run.settings;
  const parts = [`temperature ${s.temperature ?? 'endpoint default'}`, `max tokens ${s.maxTokens}`];
  if (s.k !== null) parts.push(`k ${s.k}`);
  if (run.method === 'react' || run.method.startsWith('clarion')) parts.push(`search budget ${s.searchBudget}`);
  if (run.method === 'clarion') parts.push(`clarifications ${s.clarifications}`, `at most ${s.maxInterpretations} interpretations`);
  if (run.method === 'diva') parts.push(`DIVA ${s.diva.interpretations} interpretations at ${s.diva.diversifyTemperature}, verified at ${s.diva.verifyTemperature}`);
  if (run.method === 'adf') parts.push(`ADF ${s.adf.profile} (variance ${s.adf.varianceThreshold}, separability ${s.adf.separabilityThreshold}, relevance ${s.adf.relevanceThreshold})`);
  if (run.method.startsWith('condqa')) parts.push(`at most ${s.condqa.maxConditions} conditions, ${s.condqa.maxCitations} citations`, `G-Eval ${s.geval.mode}`);
  return parts.join('; ');
}

function printComparison(c: EvalComparison): void {
  const failures = `A failed on ${c.failedA + c.failedBoth}, B on ${c.failedB + c.failedBoth} (both on ${c.failedBoth})`;
  const policy = c.errorsPolicy === 'fail' ? 'a failed item scores 0 and counts as incorrect' : `${c.excluded} pairs with a failure left out`;
  process.stdout.write(`Run ${c.a.id} (${c.a.methodLabel} × ${c.a.model}) vs run ${c.b.id} (${c.b.methodLabel} × ${c.b.model}): ${c.paired} paired items; ${failures}; ${policy}\n`);
  printTable(
    ['metric', 'A', 'B', 'B − A [95% CI]', 'bootstrap p', 'Wilcoxon p', 'McNemar (A only / B only) p'],
    c.metrics.map((m) => [
      metricLabel(m.metric),
      m.meanA?.toFixed(2) ?? '–',
      m.meanB?.toFixed(2) ?? '–',
      m.bootstrap ? `${m.bootstrap.difference.toFixed(2)} [${m.bootstrap.ciLow?.toFixed(2) ?? '–'}, ${m.bootstrap.ciHigh?.toFixed(2) ?? '–'}]` : '–',
      m.bootstrap?.pValue.toFixed(4) ?? '–',
      m.wilcoxon?.pValue.toFixed(4) ?? '–',
      m.mcnemar ? `${m.mcnemar.onlyA} / ${m.mcnemar.onlyB}, ${m.mcnemar.pValue.toFixed(4)}` : '–',
    ]),
  );
}

/** The ADF flags as the request's `adf` object (undefined keys left for the operation to default). */
function adfOptions(o: RunOptions): Record<string, unknown> | undefined {
  const adf = { profile: o.adfProfile, varianceThreshold: o.adfVar, separabilityThreshold: o.adfSep, relevanceThreshold: o.adfRel };
  return Object.values(adf).some((v) => v !== undefined) ? adf : undefined;
}

interface RunOptions extends CommonOptions {
  config?: string;
  method?: string;
  model?: { endpoint: string; model: string };
  release?: string;
  split?: string;
  dataset?: string;
  corpus?: string;
  retrieval?: string;
  hyde?: boolean;
  k?: number;
  limit?: number;
  searchBudget?: number;
  maxIterations?: number;
  maxInterpretations?: number;
  clarifications?: number;
  divaInterpretations?: number;
  adfProfile?: string;
  adfVar?: number;
  adfSep?: number;
  adfRel?: number;
  gevalMode?: string;
  gevalSamples?: number;
  judge?: { endpoint: string; model: string };
  readerModel?: { endpoint: string; model: string };
  readerUrl?: string;
  readerTimeout?: number;
  concurrency?: number;
  temperature?: number | null;
  maxTokens?: number;
  cache: boolean;
  resume?: number;
}

export function addEvalRunCommands(evaluation: Command): void {
  withCommon(
    evaluation
      .command('run')
      .description('run a QA method with a model over a release split or a dataset; --resume RUN finishes a stopped run')
      .option('--config <file>', 'endpoints and prices (a pipeline config file works)')
      .option('--method <name>', `the method ${choices(EVAL_METHODS)}`)
      .option('--model <endpoint/model>', 'the model, as ENDPOINT/MODEL', modelRef)
      .option('--release <name[@version]>', 'a release (its latest version unless @version)')
      .option('--split <name>', 'a split of the release')
      .option('--dataset <name>', 'a dataset instead of a release')
      .option('--corpus <name>', 'the corpus to search')
      .option('--retrieval <mode>', 'bm25, dense or hybrid (default bm25)')
      .option('--hyde', 'search with a hypothetical answer passage (dense and hybrid)')
      .option('--k <n>', 'passages per search (default: ADF 5, the others 10)', integer)
      .option('--limit <n>', 'at most this many items', integer)
      .option('--search-budget <n>', 'ReAct and CLARION: steps (and so searches) per item (default 5)', integer)
      .option('--max-iterations <n>', 'the former name of --search-budget (still accepted)', integer)
      .option('--max-interpretations <n>', 'CLARION interpretation set and ADF clusters at most (default 4)', integer)
      .option('--clarifications <n>', 'CLARION: clarified questions asked for (default 2)', integer)
      .option('--diva-interpretations <n>', 'DIVA: interpretations (default 3)', integer)
      .option('--adf-profile <name>', 'ADF thresholds: ambignq (0.25 / 0.1), asqa (0.15 / 0.05) or custom (default: from the source format)')
      .option('--adf-var <t>', 'ADF variance threshold (makes the profile custom)', number)
      .option('--adf-sep <t>', 'ADF separability threshold (makes the profile custom)', number)
      .option('--adf-rel <t>', 'ADF cluster relevance threshold (default 0.2)', number)
      .option('--geval-mode <mode>', 'CondAmbigQA scores: auto (token probabilities, else samples), logprobs or sampled (default auto)')
      .option('--geval-samples <n>', 'CondAmbigQA scores: samples when sampling (default 20)', integer)
      .option('--judge <endpoint/model>', 'an LLM judge (0-5 relevance, faithfulness, informativeness, correctness)', modelRef)
      .option('--reader-model <endpoint/model>', 'the extractive reader for Disambig-F1, as an LLM', modelRef)
      .option('--reader-url <url>', 'the extractive reader for Disambig-F1, as a service (POST {question, context} → {answer})')
      .option('--reader-timeout <ms>', "how long the reader may take per clarified question, in milliseconds (default 30000); past it the item's Disambig-F1 is left out", integer)
      .option('--concurrency <n>', 'items at once (default 16)', integer)
      .option('--temperature <t>', 'sampling temperature, or "default" to send none (default 0)', (v: string) => (v === 'default' ? null : number(v)))
      .option('--max-tokens <n>', 'completion tokens per call (default 512)', integer)
      .option('--no-cache', 'fresh calls, ignoring answers cached from earlier runs')
      .option('--resume <run>', 'continue this run instead of starting one', integer),
  ).action((options: RunOptions) =>
    withClient(options, async (client) => {
      const reader = options.readerModel ? { kind: 'llm' as const, model: options.readerModel } : options.readerUrl ? { kind: 'http' as const, url: options.readerUrl } : undefined;
      const result = (
        options.resume !== undefined
          ? await client.runJob('evaluation:resume', { id: options.resume, ...(options.config ? { configPath: options.config } : {}) }, `Evaluation ${options.resume}`)
          : await client.runJob(
              'evaluation:start',
              {
                method: options.method as never,
                model: options.model as never,
                configPath: options.config as string,
                release: options.release,
                split: options.split,
                dataset: options.dataset,
                corpus: options.corpus,
                retrieval: options.retrieval as never,
                hyde: options.hyde,
                k: options.k,
                limit: options.limit,
                searchBudget: options.searchBudget,
                maxIterations: options.maxIterations,
                maxInterpretations: options.maxInterpretations,
                clarifications: options.clarifications,
                diva: options.divaInterpretations === undefined ? undefined : { interpretations: options.divaInterpretations },
                adf: adfOptions(options),
                geval: options.gevalMode === undefined && options.gevalSamples === undefined ? undefined : { mode: options.gevalMode as never, samples: options.gevalSamples },
                judge: options.judge,
                reader,
                readerTimeoutMs: options.readerTimeout,
                concurrency: options.concurrency,
                temperature: options.temperature,
                maxTokens: options.maxTokens,
                noCache: !options.cache,
              },
              'Evaluation',
            )
      );
      if (options.json) printJson(result);
      else printRun(result);
      if (result.status !== 'done') process.exitCode = 1;
    }),
  );

  withCommon(evaluation.command('list').description('evaluation runs, newest first').option('--limit <n>', 'at most this many (default 100)', integer)).action(
    (options: CommonOptions & { limit?: number }) =>
      withClient(options, async (client) => {
        const runs = await client.call('evaluation:list', { limit: options.limit ?? 100 });
        if (options.json) return printJson(runs);
        printTable(
          ['run', 'method', 'model', 'source', 'status', 'answered', metricLabel('str_em'), metricLabel('disambig_f1'), metricLabel('judge_mean'), 'cost'],
          runs.map((r) => [
            String(r.id),
            r.methodLabel,
            r.model,
            r.source,
            runStatusLabel(r),
            `${r.done}/${r.total}`,
            r.metrics.str_em?.value?.toFixed(2) ?? '–',
            r.metrics.disambig_f1?.value?.toFixed(2) ?? '–',
            r.metrics.judge_mean?.value?.toFixed(2) ?? '–',
            `$${r.costUsd.toFixed(4)}`,
          ]),
        );
      }),
  );

  withCommon(evaluation.command('show').description('one run: counts, spending, latency, metrics overall and per ambiguity type').argument('<run>', 'the run id', integer)).action(
    (run: number, options: CommonOptions) =>
      withClient(options, async (client) => {
        const summary = await client.call('evaluation:get', { id: run });
        if (options.json) printJson(summary);
        else printRun(summary);
      }),
  );

  withCommon(
    evaluation
      .command('compare')
      .description('two runs on the same items: paired bootstrap, Wilcoxon signed-rank and McNemar per metric; items a run failed on count as failures unless --exclude-errors')
      .argument('<runA>', 'the first run', integer)
      .argument('<runB>', 'the second run', integer)
      .option('--threshold <x>', 'an item counts as correct for McNemar at this score (0-1; default 0.5)', number)
      .option('--resamples <n>', 'bootstrap resamples (default 1000)', integer)
      .option('--exclude-errors', 'leave out items either run failed on (by default a failed item scores 0 and counts as incorrect)'),
  ).action((a: number, b: number, options: CommonOptions & { threshold?: number; resamples?: number; excludeErrors?: boolean }) =>
    withClient(options, async (client) => {
      const comparison = await client.call('evaluation:compare', { a, b, threshold: options.threshold, resamples: options.resamples, ...(options.excludeErrors ? { errors: 'exclude' as const } : {}) });
      if (options.json) printJson(comparison);
      else printComparison(comparison);
    }),
  );
}
