import type { Command } from 'commander';
import { type LabelView, type RoundReport } from '../../shared/api';
import { ANSWERABILITY_LABELS, DOMAIN_SLUGS, LABEL_KINDS, ROUND_STATUSES } from '../../shared/domain';
import { withClient } from './client';
import { choices, integer, list, printJson, printTable, withCommon, type CommonOptions } from './common';

/**
 * `awb round`, `label`, `answerability`, `domain`, `clarification`, `qa-index`: the other papers'
 * construction workflows (CondAmbigQA's rounds, URASys's labels and QA layer, MARCH's topics).
 * Each command turns its arguments into one operation's input.
 */

const pct = (v: number | null) => (v === null ? '–' : `${(v * 100).toFixed(1)}%`);

function printRoundReport(r: RoundReport): void {
  const lines = [
    `"${r.dataset}": ${r.drafted} drafted, ${r.failed} failed; reviews applied: ${r.accepted} accepted, ${r.rejected} rejected, ${r.pending} still in review; ${r.removed} removed after the last round; $${r.costUsd.toFixed(4)}`,
  ];
  for (const f of r.failures) lines.push(`  failed ${f.item}: ${f.reason}`);
  for (const s of r.skipped) lines.push(`  skipped ${s.item}: ${s.reason}`);
  if (r.campaign) lines.push(`  review campaign ${r.campaign.id} "${r.campaign.name}" with ${r.campaign.items} items`);
  process.stdout.write(`${lines.join('\n')}\n`);
}

function printLabels(v: LabelView): void {
  const lines = [
    `${v.instanceId !== null ? `inst:${v.instanceId} of ` : ''}bq:${v.baseQuestionId}`,
    `  answerability: ${v.answerability ? `${v.answerability.label} (${v.answerability.from}, ${v.answerability.provenance?.source ?? 'unknown'})` : 'none'}`,
  ];
  if (v.instanceId !== null) lines.push(`  domain: ${v.domain ? `${v.domain.label} (${v.domain.provenance?.source ?? 'unknown'})` : 'none'}`);
  for (const vote of v.votes) lines.push(`  vote ${vote.kind} ${vote.model}: ${vote.verdict === 'voted' ? vote.label : 'not needed'}${vote.reason ? ` (${vote.reason})` : ''}`);
  for (const t of v.clarificationTurns) lines.push(`  ask "${t.systemQuestion}"${t.userReply ? ` → "${t.userReply}"` : ''} → gold "${t.clarifiedQuestion}"`);
  process.stdout.write(`${lines.join('\n')}\n`);
}

const reviewOf = (o: { review?: string[]; perInstance?: number; blind: boolean }) => (o.review ? { annotators: o.review, perInstance: o.perInstance, blind: o.blind } : undefined);

function addRoundCommands(program: Command): void {
  const round = program.command('round').description("CondAmbigQA's construction in rounds: draft, review, re-draft the rejected with their feedback");
  withCommon(
    round
      .command('start')
      .description('round 1: draft conditions, answers and citations for every base question of the dataset not yet drafted')
      .option('--dataset <name>', 'the dataset (its base questions carry the frozen fragments)')
      .option('--config <file>', 'a pipeline config (endpoints, generator, prices; optional construction block)')
      .option('--limit <n>', 'at most this many questions (a stable subset)', integer)
      .option('--review <annotators>', 'also open the review campaign for these annotators (comma-separated)', list(String))
      .option('--per-instance <n>', 'reviewers per item (default: all)', integer)
      .option('--no-blind', 'reviewers see who said what')
      .option('--no-cache', 'fresh calls, ignoring cached answers'),
  ).action((o: CommonOptions & { dataset?: string; config?: string; limit?: number; review?: string[]; perInstance?: number; blind: boolean; cache: boolean }) =>
    withClient(o, async (client) => {
      const report = await client.runJob('round:start', { dataset: o.dataset as string, configPath: o.config as string, limit: o.limit, noCache: !o.cache, review: reviewOf(o) }, 'Round 1');
      if (o.json) printJson(report);
      else printRoundReport(report);
    }),
  );
  withCommon(
    round
      .command('review')
      .description('a review campaign (protocol condambigqa-review) over the items a round drafted')
      .option('--dataset <name>', 'the dataset')
      .option('--round <n>', 'the round (default: the latest)', integer)
      .option('--annotators <list>', 'reviewers, comma-separated', list(String))
      .option('--per-instance <n>', 'reviewers per item (default: all)', integer)
      .option('--name <name>', 'campaign name')
      .option('--no-blind', 'reviewers see who said what'),
  ).action((o: CommonOptions & { dataset?: string; round?: number; annotators?: string[]; perInstance?: number; name?: string; blind: boolean }) =>
    withClient(o, async (client) => {
      const campaign = await client.call('round:review', { dataset: o.dataset as string, round: o.round, annotators: o.annotators as string[], perInstance: o.perInstance, name: o.name, blind: o.blind });
      if (o.json) printJson(campaign);
      else process.stdout.write(`Campaign ${campaign.id} "${campaign.name}": ${campaign.items.length} items for ${campaign.annotators.join(', ')}\n`);
    }),
  );
  withCommon(
    round
      .command('next')
      .description('apply the reviews, re-draft the rejected items with their feedback, remove those out of rounds')
      .option('--dataset <name>', 'the dataset')
      .option('--config <file>', 'a pipeline config')
      .option('--review <annotators>', 'also open the next review campaign for these annotators', list(String))
      .option('--per-instance <n>', 'reviewers per item (default: all)', integer)
      .option('--no-blind', 'reviewers see who said what')
      .option('--no-cache', 'fresh calls, ignoring cached answers'),
  ).action((o: CommonOptions & { dataset?: string; config?: string; review?: string[]; perInstance?: number; blind: boolean; cache: boolean }) =>
    withClient(o, async (client) => {
      const report = await client.runJob('round:next', { dataset: o.dataset as string, configPath: o.config as string, noCache: !o.cache, review: reviewOf(o) }, 'Next round');
      if (o.json) printJson(report);
      else printRoundReport(report);
    }),
  );
  withCommon(
    round
      .command('list')
      .description('the rounds of a dataset or an instance, with their decisions and feedback')
      .option('--dataset <name>', 'the dataset')
      .option('--instance <id>', 'one instance', integer)
      .option('--round <n>', 'one round', integer)
      .option('--status <status>', `one status ${choices(ROUND_STATUSES)}`)
      .option('--limit <n>', 'at most this many rows (default 500)', integer),
  ).action((o: CommonOptions & { dataset?: string; instance?: number; round?: number; status?: string; limit?: number }) =>
    withClient(o, async (client) => {
      const rows = await client.call('round:list', { dataset: o.dataset, instanceId: o.instance, round: o.round, status: o.status as never, limit: o.limit });
      if (o.json) return printJson(rows);
      printTable(['instance', 'round', 'status', 'cost', 'feedback'], rows.map((r) => [String(r.instanceId), String(r.round), r.status, `$${r.costUsd.toFixed(4)}`, (r.feedback ?? '').replace(/\s+/g, ' ').slice(0, 100)]));
    }),
  );
  withCommon(round.command('funnel').description('acceptance per round, cost and time per item').option('--dataset <name>', 'the dataset')).action((o: CommonOptions & { dataset?: string }) =>
    withClient(o, async (client) => {
      const f = await client.call('round:funnel', { dataset: o.dataset as string });
      if (o.json) return printJson(f);
      printTable(
        ['round', 'drafted', 'accepted', 'rejected', 'pending', 'acceptance', 'cumulative', 'cost/item', 'model s/item', 'review s/item'],
        f.rounds.map((r) => [
          String(r.round), String(r.drafted), String(r.accepted), String(r.rejected), String(r.pending), pct(r.acceptance), pct(r.cumulativeAcceptance),
          r.costPerItem === null ? '–' : `$${r.costPerItem.toFixed(4)}`, r.llmMsPerItem === null ? '–' : (r.llmMsPerItem / 1000).toFixed(1), r.reviewMsPerItem === null ? '–' : (r.reviewMsPerItem / 1000).toFixed(1),
        ]),
      );
      process.stdout.write(`${f.items} items: ${f.accepted} accepted, ${f.removed} removed, ${f.building} in rounds (CondAmbigQA reports 40% after round 1, 85% after round 3)\n`);
    }),
  );
}

function addLabelCommands(program: Command): void {
  const label = program.command('label').description('answerability (URASys) and topics (MARCH Table 7) of base questions');
  withCommon(
    label
      .command('start')
      .description('the labelling stage: the labelling models vote per base question, under the detection rule')
      .option('--kind <kind>', `what to label ${choices(LABEL_KINDS)}`)
      .option('--config <file>', 'a pipeline config (labellers: its labellers, else its detectors)')
      .option('--dataset <name...>', 'only these datasets')
      .option('--limit <n>', 'at most this many questions (a stable subset)', integer)
      .option('--relabel', "label again what a model labelled before (never a person's or the dataset's label)")
      .option('--no-cache', 'fresh calls, ignoring cached answers'),
  ).action((o: CommonOptions & { kind?: string; config?: string; dataset?: string[]; limit?: number; relabel?: boolean; cache: boolean }) =>
    withClient(o, async (client) => {
      const r = await client.runJob('label:start', { kind: o.kind as never, configPath: o.config as string, datasets: o.dataset, limit: o.limit, relabel: o.relabel, noCache: !o.cache }, 'Labelling');
      if (o.json) return printJson(r);
      process.stdout.write(`${r.kind}: ${r.labelled} labelled (${Object.entries(r.counts).map(([k, v]) => `${k} ${v}`).join(', ') || 'none'}), ${r.noConsensus} without consensus, ${r.failed} failed; ${r.votesSaved} votes not needed; $${r.costUsd.toFixed(4)}\n`);
      for (const f of r.failures) process.stdout.write(`  failed ${f.item}: ${f.reason}\n`);
    }),
  );
  withCommon(label.command('show').description('the labels, votes and clarification turns of an instance or a base question').option('--instance <id>', 'instance id', integer).option('--base-question <id>', 'base question id', integer)).action(
    (o: CommonOptions & { instance?: number; baseQuestion?: number }) =>
      withClient(o, async (client) => {
        const v = await client.call('label:get', { instanceId: o.instance, baseQuestionId: o.baseQuestion });
        if (o.json) printJson(v);
        else printLabels(v);
      }),
  );
  withCommon(
    program
      .command('answerability')
      .description('set (or clear, with none) the answerability of an instance or a base question by hand')
      .argument('[label]', `${choices([...ANSWERABILITY_LABELS, 'none'])}`)
      .option('--instance <id>', 'instance id', integer)
      .option('--base-question <id>', 'base question id', integer)
      .option('--note <text>', 'why (kept with the label)'),
  ).action((value: string | undefined, o: CommonOptions & { instance?: number; baseQuestion?: number; note?: string }) =>
    withClient(o, async (client) => {
      const v = await client.call('answerability:set', { instanceId: o.instance, baseQuestionId: o.baseQuestion, label: (value === 'none' ? null : value) as never, note: o.note });
      if (o.json) printJson(v);
      else printLabels(v);
    }),
  );
}

function addDomainCommands(program: Command): void {
  const domain = program.command('domain').description("instances' topics: MARCH Table 7's fifteen labels");
  withCommon(domain.command('list').description('the labels, with the share of MARCH items each covers')).action((o: CommonOptions) =>
    withClient(o, async (client) => {
      const rows = await client.call('domain:list', {});
      if (o.json) return printJson(rows);
      printTable(['slug', 'label', 'MARCH %'], rows.map((r) => [r.slug, r.label, r.paperPercent.toFixed(2)]));
    }),
  );
  withCommon(
    domain.command('set').description('set (or clear, with none) an instance\'s topic by hand').argument('[domain]', `${choices([...DOMAIN_SLUGS, 'none'])}`).option('--instance <id>', 'instance id', integer).option('--note <text>', 'why'),
  ).action((value: string | undefined, o: CommonOptions & { instance?: number; note?: string }) =>
    withClient(o, async (client) => {
      const v = await client.call('domain:set', { instanceId: o.instance as number, domain: (value === 'none' ? null : value) as never, note: o.note });
      if (o.json) printJson(v);
      else printLabels(v);
    }),
  );
  withCommon(
    program
      .command('clarification')
      .description("an instance's clarification turn (URASys): the question to ask, the user's reply, the clarified question (gold)")
      .option('--instance <id>', 'instance id', integer)
      .option('--ask <question>', 'what the system should ask')
      .option('--reply <text>', "the user's reply")
      .option('--clarified <question>', 'the clarified question')
      .option('--interpretation <n>', 'the interpretation it selects (from 0)', integer)
      .option('--clear', 'remove the turns'),
  ).action((o: CommonOptions & { instance?: number; ask?: string; reply?: string; clarified?: string; interpretation?: number; clear?: boolean }) =>
    withClient(o, async (client) => {
      const turns = o.clear ? [] : [{ systemQuestion: o.ask as string, userReply: o.reply, clarifiedQuestion: o.clarified as string, interpretation: o.interpretation }];
      const v = await client.call('clarification:set', { instanceId: o.instance as number, turns });
      if (o.json) printJson(v);
      else printLabels(v);
    }),
  );
}

function addQaIndexCommands(program: Command): void {
  const qa = program.command('qa-index').description("URASys's QA layer: generated question-answer pairs beside a corpus, searched with it (awb search --layers passages,qa)");
  withCommon(
    qa
      .command('build')
      .description('write question-answer pairs and rephrasings for every passage not yet done')
      .option('--corpus <name>', 'the passage corpus')
      .option('--config <file>', 'a pipeline config (generator; optional qaIndex block: perPassage, paraphrases)')
      .option('--limit <n>', 'at most this many passages', integer)
      .option('--no-cache', 'fresh calls, ignoring cached answers'),
  ).action((o: CommonOptions & { corpus?: string; config?: string; limit?: number; cache: boolean }) =>
    withClient(o, async (client) => {
      const r = await client.runJob('qa-index:build', { corpus: o.corpus as string, configPath: o.config as string, limit: o.limit, noCache: !o.cache }, 'QA layer');
      if (o.json) return printJson(r);
      process.stdout.write(`"${r.layer}": ${r.pairs} pairs (${r.grounded} grounded in their passage) and ${r.paraphrases} rephrasings from ${r.passages} passages; ${r.failed} failed; ${r.embedded} rows embedded; $${r.costUsd.toFixed(4)}\n`);
      for (const f of r.failures) process.stdout.write(`  failed ${f.item}: ${f.reason}\n`);
    }),
  );
  withCommon(qa.command('show').description('the QA layer of a corpus: its counts and prompt versions').option('--corpus <name>', 'the passage corpus')).action((o: CommonOptions & { corpus?: string }) =>
    withClient(o, async (client) => {
      const v = await client.call('qa-index:get', { corpus: o.corpus as string });
      if (o.json) return printJson(v);
      process.stdout.write(v.layer ? `"${v.layer}": ${v.pairs} pairs, ${v.paraphrases} rephrasings, from ${v.sources} of ${v.passages} passages (${v.promptVersions.join(', ')})\n` : `"${v.corpus}" has no QA layer yet\n`);
    }),
  );
}

export function addConstructionCommands(program: Command): void {
  addRoundCommands(program);
  addLabelCommands(program);
  addDomainCommands(program);
  addQaIndexCommands(program);
}
