import type { Command } from 'commander';
import { SEARCH_LAYERS, type AskFirstRun } from '../../shared/api';
import { withClient } from './client';
import { choices, integer, list, printJson, printTable, withCommon, type CommonOptions } from './common';

/** `awb ask-first run|show|list`: the ask-before-answer setting (URASys Table 2), scored per answerability label. */

const pct = (v: number | null) => (v === null ? '–' : `${(v * 100).toFixed(1)}%`);

function printAskTable(r: AskFirstRun): void {
  const t = r.table;
  process.stdout.write(`run ${r.id} on "${r.dataset}" (${r.model}${r.corpus ? `, searching ${r.corpus}` : ', own paragraphs'}): ${r.done}/${r.total} done, ${r.failed} failed, $${r.costUsd.toFixed(4)}\n`);
  printTable(
    ['', 'items', 'correct', 'accuracy'],
    [
      ['overall', String(t.overall.n), String(t.overall.correct), pct(t.overall.accuracy)],
      ...(['answerable', 'unanswerable', 'ambiguous'] as const).map((l) => [l, String(t.byLabel[l].n), String(t.byLabel[l].correct), pct(t.byLabel[l].accuracy)]),
      ['ambiguous, answer after the reply', String(t.ambiguousStrict.n), String(t.ambiguousStrict.correct), pct(t.ambiguousStrict.accuracy)],
    ],
  );
  for (const note of r.notes) process.stdout.write(`note: ${note}\n`);
}

export function addAskFirstCommands(program: Command): void {
  const askFirst = program.command('ask-first').description('the ask-before-answer evaluation (URASys): answer, ask, or say there is no answer; accuracy per answerability label');
  withCommon(
    askFirst
      .command('run')
      .description("run the setting over a dataset's labelled base questions")
      .option('--dataset <name>', 'the dataset (its base questions need answerability labels)')
      .option('--config <file>', 'a pipeline config (its generator answers)')
      .option('--corpus <name>', "search this corpus for evidence (default: each question's own paragraphs)")
      .option('--layers <list>', `what to search, comma-separated ${choices(SEARCH_LAYERS)} (default passages)`, list(String))
      .option('--mode <mode>', 'bm25, dense or hybrid (default hybrid)')
      .option('--k <n>', 'passages per question (default 5)', integer)
      .option('--limit <n>', 'at most this many questions (a stable subset)', integer)
      .option('--no-cache', 'fresh calls, ignoring cached answers'),
  ).action((o: CommonOptions & { dataset?: string; config?: string; corpus?: string; layers?: string[]; mode?: string; k?: number; limit?: number; cache: boolean }) =>
    withClient(o, async (client) => {
      const input = { dataset: o.dataset as string, configPath: o.config as string, corpus: o.corpus, layers: o.layers as never, mode: o.mode as never, k: o.k, limit: o.limit, noCache: !o.cache };
      const r = await client.runJob('ask-first:start', input, 'Ask first');
      if (o.json) printJson(r);
      else printAskTable(r);
    }),
  );
  withCommon(askFirst.command('show').description('one run: the table per label and each item').argument('[run]', 'run id', integer)).action((id: number | undefined, o: CommonOptions) =>
    withClient(o, async (client) => {
      const r = await client.call('ask-first:get', { id: id as number });
      if (o.json) return printJson(r);
      printAskTable(r);
      for (const i of r.items) process.stdout.write(`  ${i.key} [${i.label}] ${i.action ?? i.error ?? 'pending'}${i.correct === null ? '' : i.correct ? ' ✓' : ' ✗'}${i.answer ? ` "${i.answer}"` : ''}${i.afterReply !== null ? ` → "${i.afterReply}"` : ''}\n`);
    }),
  );
  withCommon(askFirst.command('list').description('ask-first runs, newest first')).action((o: CommonOptions) =>
    withClient(o, async (client) => {
      const runs = await client.call('ask-first:list', {});
      if (o.json) return printJson(runs);
      printTable(['run', 'dataset', 'model', 'items', 'overall', 'answerable', 'unanswerable', 'ambiguous'], runs.map((r) => [String(r.id), r.dataset, r.model, String(r.total), pct(r.table.overall.accuracy), pct(r.table.byLabel.answerable.accuracy), pct(r.table.byLabel.unanswerable.accuracy), pct(r.table.byLabel.ambiguous.accuracy)]));
    }),
  );
}
