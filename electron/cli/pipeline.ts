import type { Command } from 'commander';
import { formatCost, formatUsd, RUN_STAGES, type CostPerKept, type RunSummary } from '../../shared/pipeline';
import { CliError, withClient } from './client';
import { choices, integer, list, number, printJson, printTable, withCommon, type CommonOptions } from './common';
import { readFakeScript, startFakeEndpoint } from '../dev/fake-model';

/** `awb pipeline run|resume|show|status|funnel|failures|trace|prompts|price`: the construction pipeline. */

function printRun(run: RunSummary): void {
  const lines = [`Run ${run.id}: ${run.status}${run.error ? ` (${run.error})` : ''}`];
  for (const s of run.stages) {
    lines.push(
      `  ${s.stage.padEnd(10)} ${String(s.processed).padStart(7)} items: ${s.done} done, ${s.removed} removed, ${s.failed} failed; ` +
        `${s.calls} calls (+${s.cachedCalls} cached), ${s.promptTokens + s.completionTokens} tokens, ${formatCost(s.costUsd, s.unpricedCalls, true)}`,
    );
  }
  lines.push(`  total: ${run.calls} calls, ${run.cachedCalls} answered from the cache, ${run.promptTokens} tokens in, ${run.completionTokens} out, ${formatCost(run.costUsd, run.unpricedCalls, true)}`);
  for (const v of run.voting ?? []) if (v.notNeeded) lines.push(`  early exit: ${v.stage}${v.key ? ` ${v.key}` : ''} asked ${v.asked} votes, ${v.notNeeded} not needed; order ${v.order.join(', ')}`);
  if (run.costPerKept) lines.push(...costLines(run.costPerKept));
  for (const b of run.batches ?? []) lines.push(`  batch ${b.id} (${b.providerBatchId ?? 'not created'}): ${b.stage} ${b.model}, ${b.state}, ${b.completed}/${b.requests} answered, ${b.failed} failed${b.attempt > 1 ? `, attempt ${b.attempt}` : ''}`);
  if (run.status === 'waiting') lines.push(`  waiting for batches at the provider: resume with awb pipeline resume ${run.id}`);
  if (run.retrieval) lines.push(`  retrieval ran ${run.retrieval === 'worker' ? 'in a worker thread' : 'on the main thread'}`);
  if (run.rerank) lines.push(`  evidence re-ranked with ${run.rerank.model}${run.rerank.lexical ? ' (lexical)' : ''}`);
  for (const note of run.log) lines.push(`  note: ${note}`);
  process.stdout.write(`${lines.join('\n')}\n`);
}

const usd = (v: number | null) => (v === null ? 'unknown (a model has no price)' : formatUsd(v));

/** Cost per kept instance: per stage, the total, and the ratio to the same run asking everyone synchronously. */
function costLines(cost: CostPerKept): string[] {
  if (!cost.kept.total) return [`  cost per kept instance: no instance kept by this run (${cost.total.spend.tokens} tokens, ${usd(cost.total.spend.usd)} spent)`];
  const lines = [`  cost per kept instance (${cost.kept.total} kept: ${Object.entries(cost.kept.byType).map(([t, n]) => `${n} ${t}`).join(', ')}):`];
  for (const s of cost.stages) lines.push(`    ${s.stage.padEnd(10)} ${Math.round(s.perKept.tokens ?? 0).toLocaleString('en-US').padStart(9)} tokens  ${usd(s.perKept.usd)}${s.batchCalls ? `  (${s.batchCalls} of ${s.calls} calls in batches)` : ''}`);
  lines.push(`    ${'total'.padEnd(10)} ${Math.round(cost.total.perKept.tokens ?? 0).toLocaleString('en-US').padStart(9)} tokens  ${usd(cost.total.perKept.usd)}`);
  const e = cost.askEveryoneSync;
  const ratio = (r: number | null) => (r === null ? '–' : `${r.toFixed(2)}×`);
  lines.push(`    asking everyone synchronously would have cost ${Math.round(e.perKept.tokens ?? 0).toLocaleString('en-US')} tokens and ${usd(e.perKept.usd)} per kept instance: this run ${ratio(e.tokensRatio)} the tokens, ${ratio(e.usdRatio)} the money (${cost.notNeeded.votes} votes not needed)`);
  return lines;
}

/** `run`, `resume` and `show`: starting, taking up again and reading one run. */
function addRunCommands(pipeline: Command): void {
  withCommon(
    pipeline
      .command('run')
      .description('run the pipeline (or some stages) over the base questions; resumes where the last run stopped')
      .option('--config <file>', 'pipeline config (see resources/pipeline.example.json)')
      .option('--stages <list>', `comma-separated stages (default all) ${choices(RUN_STAGES)}`, list(String))
      .option('--limit <n>', 'at most this many items per stage', integer)
      .option('--dataset <name...>', 'only these datasets')
      .option('--no-cache', 'fresh calls for the stages run (with --stages: only those), ignoring cached answers')
      .option('--max-usd <dollars>', 'a cost ceiling for this run: it stops before a call would pass it', number),
  ).action((options: CommonOptions & { config?: string; stages?: string[]; limit?: number; dataset?: string[]; cache: boolean; maxUsd?: number }) =>
    withClient(options, async (client) => {
      const run = await client.runJob(
        'pipeline:start',
        { configPath: options.config as string, stages: options.stages as never, limit: options.limit, datasets: options.dataset, noCache: !options.cache, maxUsd: options.maxUsd },
        'Pipeline',
      );
      if (options.json) printJson(run);
      else printRun(run);
      if (run.status !== 'done') process.exitCode = 1;
    }),
  );

  withCommon(
    pipeline
      .command('resume')
      .description('take a stored run up again under its id: its batches still at the provider are polled and read back, then its stages go on where they stopped')
      .argument('<run>', 'the run id', integer)
      .option('--max-usd <dollars>', 'a new cost ceiling for the run', number),
  ).action((run: number, options: CommonOptions & { maxUsd?: number }) =>
    withClient(options, async (client) => {
      const summary = await client.runJob('pipeline:resume', { run, maxUsd: options.maxUsd }, `Pipeline run ${run}`);
      if (options.json) printJson(summary);
      else printRun(summary);
      if (summary.status !== 'done') process.exitCode = 1;
    }),
  );

  withCommon(pipeline.command('show').description('one run (the latest by default): its stages, early exit, batches, and what a kept instance cost per stage and type').argument('[run]', 'the run id', integer)).action(
    (run: number | undefined, options: CommonOptions) =>
      withClient(options, async (client) => {
        const summary = await client.call('pipeline:show', { run });
        if (options.json) printJson(summary);
        else printRun(summary);
      }),
  );
}

export function addPipelineCommands(program: Command): void {
  const pipeline = program.command('pipeline').description('the MARCH construction pipeline: detect, clarify, decompose, retrieve, answer, merge, shorten, collide, filter');

  addRunCommands(pipeline);

  withCommon(pipeline.command('status').description('items done and failed per stage, and the latest runs')).action((options: CommonOptions) =>
    withClient(options, async (client) => {
      const status = await client.call('pipeline:status', {});
      if (options.json) return printJson(status);
      printTable(
        ['stage', 'done', 'failed'],
        status.stages.map((s) => [s.stage, String(s.done), String(s.failed)]),
      );
      for (const run of status.runs.slice(0, 3)) printRun(run);
    }),
  );

  withCommon(pipeline.command('funnel').description('instances surviving each step, per ambiguity type (MARCH Table 2, top)').option('--dataset <name...>', 'only these datasets')).action(
    (options: CommonOptions & { dataset?: string[] }) =>
      withClient(options, async (client) => {
        const funnel = await client.call('pipeline:funnel', { datasets: options.dataset });
        if (options.json) return printJson(funnel);
        const rows = funnel.rows.map((r) => [r.step, ...funnel.types.map((t) => String(r.counts[t] ?? 0)), String(r.total)]);
        rows.push(['average hops (kept)', ...funnel.types.map((t) => String(funnel.averageHops[t] ?? '–')), String(funnel.averageHops.all ?? '–')]);
        rows.push(['question words (kept)', ...funnel.types.map((t) => String(funnel.averageQuestionWords[t] ?? '–')), String(funnel.averageQuestionWords.all ?? '–')]);
        printTable(['step', ...funnel.types, 'total'], rows);
      }),
  );

  withCommon(
    pipeline
      .command('failures')
      .description('items that failed a stage, with the reason (the next run takes them up again)')
      .option('--stage <stage>', `only this stage ${choices(RUN_STAGES)}`)
      .option('--limit <n>', 'at most this many (default 200)', integer),
  ).action((options: CommonOptions & { stage?: string; limit?: number }) =>
    withClient(options, async (client) => {
      const failures = await client.call('pipeline:failures', { stage: options.stage as never, limit: options.limit });
      if (options.json) return printJson(failures);
      for (const f of failures) process.stdout.write(`${f.item.padEnd(12)} ${f.stage.padEnd(10)} ${f.reason ?? ''}\n    ${f.question}\n`);
    }),
  );

  withCommon(pipeline.command('trace').description("an item's stages and every call with its prompt and raw output").argument('[item]', 'bq:ID (a base question) or inst:ID (an instance)')).action(
    (item: string | undefined, options: CommonOptions) =>
      withClient(options, async (client) => {
        const trace = await client.call('pipeline:trace', { item: item as string });
        if (options.json) return printJson(trace);
        for (const s of trace.stages) process.stdout.write(`${s.stage}: ${s.status}${s.reason ? ` (${s.reason})` : ''}\n`);
        for (const c of trace.calls) process.stdout.write(`#${c.id} ${c.stage} ${c.model} ${c.status}${c.error ? ` (${c.error})` : ''}\n  → ${(c.response ?? '').slice(0, 300)}\n`);
      }),
  );

  withCommon(pipeline.command('prompts').description('the current prompt templates (edit them in the app; every edit is a new version)')).action((options: CommonOptions) =>
    withClient(options, async (client) => {
      const prompts = await client.call('pipeline:prompts', {});
      if (options.json) printJson(prompts);
      else for (const p of prompts) process.stdout.write(`## ${p.stage} v${p.version}${p.builtIn ? ' (built in)' : ''}\n[system]\n${p.system}\n[user]\n${p.user}\n\n`);
    }),
  );

  withCommon(
    pipeline
      .command('price')
      .description('set (or list, without arguments) the price of a model in US dollars per million tokens')
      .argument('[model]')
      .argument('[input]', 'price per million input tokens', number)
      .argument('[output]', 'price per million output tokens', number)
      .option('--batch-input <price>', 'price per million input tokens sent in a batch (default: half the input price)', number)
      .option('--batch-output <price>', 'price per million output tokens sent in a batch (default: half the output price)', number)
      .option('--cached-input <price>', "price per million prompt tokens read from the provider's cache (default: the input price)", number),
  ).action((model: string | undefined, input: number | undefined, output: number | undefined, options: CommonOptions & { batchInput?: number; batchOutput?: number; cachedInput?: number }) =>
    withClient(options, async (client) => {
      const prices = model
        ? await client.call('pipeline:price-set', { model, input: input as number, output: output as number, batchInput: options.batchInput, batchOutput: options.batchOutput, cachedInput: options.cachedInput })
        : await client.call('pipeline:prices', {});
      if (options.json) return printJson(prices);
      for (const p of prices) {
        const batch = p.batchInput !== undefined ? `  batch $${p.batchInput}/$${p.batchOutput}` : '  batch at half';
        process.stdout.write(`${p.model.padEnd(40)} $${p.input}/M in  $${p.output}/M out${batch}${p.cachedInput !== undefined ? `  cached $${p.cachedInput}/M` : ''}\n`);
      }
    }),
  );

  // A local server, like `awb serve`: no operation, since it answers model calls, not the API.
  withCommon(
    pipeline
      .command('fake-endpoint')
      .description('serve a fake OpenAI-compatible model on this machine that answers from the passages in each prompt (for the offline demo: resources/pipeline.offline.json)')
      .option('--port <n>', 'port (default 8088; 0 picks a free one)', integer)
      .option('--host <host>', 'interface (loopback only: 127.0.0.1 or ::1)', '127.0.0.1')
      .option('--script <file>', 'per-question verdicts and answers as JSON: detect, filter, items[{question, detect, clarify, answers, filter}]'),
  ).action(async (options: CommonOptions & { port?: number; host: string; script?: string }) => {
    const port = options.port ?? 8088;
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new CliError('invalid_input', `--port: expected a port number from 0 to 65535, not ${options.port}`);
    if (!['127.0.0.1', '::1', 'localhost'].includes(options.host)) throw new CliError('invalid_input', `--host: the fake endpoint listens on loopback only, not ${options.host}`);
    const endpoint = await startFakeEndpoint({ port, host: options.host, ...(options.script ? { script: readFakeScript(options.script) } : {}) });
    if (options.json) printJson({ url: endpoint.url });
    else process.stdout.write(`Fake model endpoint at ${endpoint.url} (point a pipeline config's baseURL at it). Press Ctrl+C to stop.\n`);
    const stop = () => {
      void endpoint.close().then(() => process.exit(0));
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}
