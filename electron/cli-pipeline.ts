import { type Command, InvalidArgumentError } from 'commander';
import { openDatabase } from '../db/connection';
import { listPrices, setPrice } from '../db/queries/pipeline';
import { AppError } from '../shared/api';
import { PIPELINE_STAGES, type PipelineStage } from '../shared/domain';
import type { RunSummary } from '../shared/pipeline';
import { databasePath, printJson, progressLine, withCommon, type CommonOptions } from './cli-common';
import { currentPrompts } from './services/pipeline/prompts';
import { itemTrace, pipelineFunnel, pipelineStatus, readConfigFile, runPipeline } from './services/pipeline/run';

/** `awb pipeline run|status|funnel|trace|prompts|price`: the construction pipeline. */

function stageList(value: string): PipelineStage[] {
  const names = value.split(',').map((s) => s.trim()).filter(Boolean);
  const unknown = names.filter((n) => !(PIPELINE_STAGES as readonly string[]).includes(n));
  if (unknown.length) throw new InvalidArgumentError(`unknown stage ${unknown.join(', ')} (stages: ${PIPELINE_STAGES.join(', ')})`);
  return names as PipelineStage[];
}

function positive(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('expected a positive whole number');
  return n;
}

function printRun(run: RunSummary): void {
  const lines = [`Run ${run.id}: ${run.status}${run.error ? ` (${run.error})` : ''}`];
  for (const s of run.stages) {
    lines.push(
      `  ${s.stage.padEnd(10)} ${String(s.processed).padStart(7)} items: ${s.done} done, ${s.removed} removed, ${s.failed} failed; ` +
        `${s.calls} calls (+${s.cachedCalls} cached), ${s.promptTokens + s.completionTokens} tokens, $${s.costUsd.toFixed(4)}`,
    );
  }
  lines.push(`  total: ${run.calls} calls, ${run.cachedCalls} answered from the cache, ${run.promptTokens} tokens in, ${run.completionTokens} out, $${run.costUsd.toFixed(4)}`);
  if (run.retrieval) lines.push(`  retrieval ran ${run.retrieval === 'worker' ? 'in a worker thread' : 'on the main thread'}`);
  process.stdout.write(`${lines.join('\n')}\n`);
}

export function addPipelineCommands(program: Command): void {
  const pipeline = program.command('pipeline').description('the MARCH construction pipeline: detect, clarify, decompose, retrieve, answer, merge, shorten, collide, filter');

  withCommon(
    pipeline
      .command('run')
      .description('run the pipeline (or some stages) over the base questions; resumes where the last run stopped')
      .requiredOption('--config <file>', 'pipeline config (see resources/pipeline.example.json)')
      .option('--stages <list>', `comma-separated stages (default all: ${PIPELINE_STAGES.join(',')})`, stageList)
      .option('--limit <n>', 'at most this many items per stage', positive)
      .option('--dataset <name...>', 'only these datasets')
      .option('--no-cache', 'fresh calls for the stages run (with --stages: only those), ignoring cached answers'),
  ).action(async (options: CommonOptions & { config: string; stages?: PipelineStage[]; limit?: number; dataset?: string[]; cache: boolean }) => {
    const db = openDatabase(databasePath(options));
    const controller = new AbortController();
    const onSignal = () => {
      if (controller.signal.aborted) process.exit(130);
      process.stderr.write('\nStopping after the calls in flight (Ctrl+C again to quit at once)…\n');
      controller.abort();
    };
    process.on('SIGINT', onSignal);
    const progress = progressLine('Pipeline');
    try {
      const run = await runPipeline(db, {
        config: readConfigFile(options.config),
        ...(options.stages ? { stages: options.stages } : {}),
        ...(options.limit ? { limit: options.limit } : {}),
        ...(options.dataset ? { datasets: options.dataset } : {}),
        ...(options.cache ? {} : { noCache: options.stages ?? [...PIPELINE_STAGES] }),
        signal: controller.signal,
        onProgress: (p) =>
          progress.update(p.done, p.total, {
            phase: p.stage ?? '',
            etaSeconds: p.etaSeconds,
            detail: `${p.calls} calls, ${p.cachedCalls} cached, ${p.failedCalls} failed, $${p.costUsd.toFixed(4)}`,
          }),
      });
      progress.done();
      if (options.json) printJson(run);
      else printRun(run);
      if (run.status !== 'done') process.exitCode = 1;
    } finally {
      process.off('SIGINT', onSignal);
      db.close();
    }
  });

  withCommon(pipeline.command('status').description('items done and failed per stage, and the latest runs')).action((options: CommonOptions) => {
    const db = openDatabase(databasePath(options));
    try {
      const status = pipelineStatus(db);
      if (options.json) printJson(status);
      else {
        for (const s of status.stages) process.stdout.write(`${s.stage.padEnd(10)} ${String(s.done).padStart(7)} done ${String(s.failed).padStart(6)} failed\n`);
        for (const run of status.runs.slice(0, 3)) printRun(run);
      }
    } finally {
      db.close();
    }
  });

  withCommon(pipeline.command('funnel').description('instances surviving each step, per ambiguity type (MARCH Table 2, top)').option('--dataset <name...>', 'only these datasets')).action(
    (options: CommonOptions & { dataset?: string[] }) => {
      const db = openDatabase(databasePath(options));
      try {
        const funnel = pipelineFunnel(db, options.dataset ?? []);
        if (options.json) printJson(funnel);
        else {
          const header = ['step', ...funnel.types, 'total'];
          const rows = funnel.rows.map((r) => [r.step, ...funnel.types.map((t) => String(r.counts[t] ?? 0)), String(r.total)]);
          rows.push(['average hops (kept)', ...funnel.types.map((t) => String(funnel.averageHops[t] ?? '–')), String(funnel.averageHops.all ?? '–')]);
          rows.push(['question words (kept)', ...funnel.types.map((t) => String(funnel.averageQuestionWords[t] ?? '–')), String(funnel.averageQuestionWords.all ?? '–')]);
          const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
          for (const r of [header, ...rows]) process.stdout.write(`${r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ')}\n`);
        }
      } finally {
        db.close();
      }
    },
  );

  withCommon(pipeline.command('trace').description("an item's stages and every call with its prompt and raw output").argument('<item>', 'bq:ID (a base question) or inst:ID (an instance)')).action(
    (item: string, options: CommonOptions) => {
      if (!/^(bq|inst):\d+$/.test(item)) throw new AppError('invalid_input', `An item is bq:ID or inst:ID, not "${item}"`);
      const db = openDatabase(databasePath(options));
      try {
        const trace = itemTrace(db, item);
        if (options.json) printJson(trace);
        else {
          for (const s of trace.stages) process.stdout.write(`${s.stage}: ${s.status}${s.reason ? ` (${s.reason})` : ''}\n`);
          for (const c of trace.calls) process.stdout.write(`#${c.id} ${c.stage} ${c.model} ${c.status}${c.error ? ` (${c.error})` : ''}\n  → ${(c.response ?? '').slice(0, 300)}\n`);
        }
      } finally {
        db.close();
      }
    },
  );

  withCommon(pipeline.command('prompts').description('the current prompt templates (edit them in the app; every edit is a new version)')).action((options: CommonOptions) => {
    const db = openDatabase(databasePath(options));
    try {
      const prompts = [...currentPrompts(db).values()];
      if (options.json) printJson(prompts);
      else for (const p of prompts) process.stdout.write(`## ${p.stage} v${p.version}${p.builtIn ? ' (built in)' : ''}\n[system]\n${p.system}\n[user]\n${p.user}\n\n`);
    } finally {
      db.close();
    }
  });

  withCommon(
    pipeline
      .command('price')
      .description('set (or list, without arguments) the price of a model in US dollars per million tokens')
      .argument('[model]')
      .argument('[input]', 'price per million input tokens', Number)
      .argument('[output]', 'price per million output tokens', Number),
  ).action((model: string | undefined, input: number | undefined, output: number | undefined, options: CommonOptions) => {
    const db = openDatabase(databasePath(options));
    try {
      if (model) {
        if (input === undefined || output === undefined || !Number.isFinite(input) || !Number.isFinite(output) || input < 0 || output < 0) {
          throw new AppError('invalid_input', 'Give the model, then its input and output price per million tokens, e.g. `awb pipeline price gpt-4.1 2 8`.');
        }
        setPrice(db, model, input, output);
      }
      const prices = listPrices(db);
      if (options.json) printJson(prices);
      else for (const p of prices) process.stdout.write(`${p.model.padEnd(40)} $${p.input}/M in  $${p.output}/M out\n`);
    } finally {
      db.close();
    }
  });
}
