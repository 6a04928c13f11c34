import { getBaseQuestionPassages, questionsToLabel, setBaseQuestionAnswerability } from '../../../db/queries/base-questions';
import { findDatasetByName } from '../../../db/queries/datasets';
import { setInstanceDomain } from '../../../db/queries/instances';
import { replaceLabelVotes } from '../../../db/queries/label-votes';
import { getPassages } from '../../../db/queries/passages';
import { markItem } from '../../../db/queries/pipeline-items';
import { getOrCreateProvenance } from '../../../db/queries/provenance';
import { insertRun } from '../../../db/queries/runs';
import { transaction, type WritableDB } from '../../../db/sql';
import { AppError, type LabelReport } from '../../../shared/api';
import { labelConsensus, labellersOf, type ConstructionConfig } from '../../../shared/construction';
import type { Answerability, Domain, LabelKind } from '../../../shared/domain';
import type { ModelRef } from '../../../shared/pipeline';
import { stableSubset } from '../../../shared/pipeline-rules';
import { DOMAIN_LIST } from '../pipeline/construction-prompts';
import { askPrompt, eachItem, llmProvenance, modelName, promptContext, promptRun, type PromptContext } from '../pipeline/prompt-call';

/**
 * The labelling stage: each base question's answerability (URASys) or topic (MARCH Table 7),
 * voted by the labelling models under the detection stage's rule (all, a majority, at least N).
 * Models are asked one after another and asking stops as soon as the outcome is decided, either
 * way (the early exit): the votes not asked are kept as not needed. With a consensus the label is
 * written (a topic to every instance of the question); without one nothing is, and the item says
 * why. Labels a person or the dataset gave are never overwritten.
 */

export interface LabelRequest {
  kind: LabelKind;
  datasets: string[];
  config: ConstructionConfig;
  limit?: number | undefined;
  relabel: boolean;
  noCache: boolean;
}

interface Vote {
  model: string;
  label: string;
  reason: string;
  ref: ModelRef;
  prompt: string;
  callId: number;
}

const PROMPT = { answerability: 'label_answerability', domain: 'label_domain' } as const;

export async function runLabelling(db: WritableDB, request: LabelRequest, options: { signal?: AbortSignal | undefined; keys?: Readonly<Record<string, string>> | undefined; onProgress?: (done: number, total: number, detail: string) => void }): Promise<LabelReport> {
  const datasetIds = request.datasets.map((name) => {
    const row = findDatasetByName(db, name);
    if (!row) throw new AppError('not_found', `No dataset named "${name}"`);
    return row.id;
  });
  const candidates = questionsToLabel(db, request.kind, datasetIds, request.relabel);
  const items = request.limit ? stableSubset(candidates.map((c) => ({ ...c, sourceId: c.source_id })), request.limit) : candidates;
  const rule = request.config.labelling[request.kind].rule;
  const runId = insertRun(db, 'pipeline', { kind: `label_${request.kind}`, datasets: request.datasets, rule, labellers: labellersOf(request.config) });
  const ctx = promptContext(db, request.config, { runId, signal: options.signal, keys: options.keys, ...(request.noCache ? { noCache: new Set([PROMPT[request.kind]]) } : {}) });
  const report: LabelReport = { kind: request.kind, runId, labelled: 0, noConsensus: 0, failed: 0, votesSaved: 0, counts: {}, failures: [], costUsd: 0 };
  let done = 0;
  await promptRun(
    ctx,
    options.signal,
    () =>
      eachItem(items, request.config.concurrency, options.signal, async (q) => {
        await labelOne(ctx, request, q, report);
        options.onProgress?.(++done, items.length, `${report.labelled} labelled, ${report.noConsensus} without consensus · $${ctx.llm.stats.costUsd.toFixed(4)}`);
      }),
    () => {
      report.costUsd = ctx.llm.stats.costUsd;
      return `labelling ${request.kind}: ${report.labelled} labelled, ${report.noConsensus} without consensus, ${report.votesSaved} votes not needed`;
    },
  );
  return report;
}

function promptValues(ctx: PromptContext, kind: LabelKind, q: { id: number; question: string }): Record<string, string> {
  if (kind === 'domain') return { question: q.question, labels: DOMAIN_LIST };
  const paragraphs = getBaseQuestionPassages(ctx.db, q.id);
  const passages = getPassages(ctx.db, paragraphs.map((p) => p.passage_id));
  const text = paragraphs.map((p, i) => `[${i + 1}] ${passages.get(p.passage_id)!.title}: ${passages.get(p.passage_id)!.text}`).join('\n\n');
  return { question: q.question, passages: text || '(no passages)' };
}

async function labelOne(ctx: PromptContext, request: LabelRequest, q: { id: number; question: string }, report: LabelReport): Promise<void> {
  const stage = PROMPT[request.kind];
  const item = `bq:${q.id}`;
  const labellers = labellersOf(request.config);
  const rule = request.config.labelling[request.kind].rule;
  const values = promptValues(ctx, request.kind, q);
  const votes: Vote[] = [];
  let outcome = labelConsensus(rule, [], labellers.length);
  for (const ref of labellers) {
    if (outcome.state !== 'open') break;
    const result = await askPrompt(ctx, stage, stage, item, ref, values);
    if (!result.ok) {
      markItem(ctx.db, stage, item, 'failed', ctx.runId, `${modelName(ref)}: ${result.reason}`, result.raw);
      report.failed++;
      report.failures.push({ item, reason: `${modelName(ref)}: ${result.reason}` });
      return;
    }
    const value = result.value as { label?: string; domain?: string; reason: string };
    votes.push({ model: modelName(ref), label: (value.label ?? value.domain)!, reason: value.reason, ref, prompt: result.prompt, callId: result.callId });
    outcome = labelConsensus(rule, votes.map((v) => v.label), labellers.length);
  }
  const notAsked = labellers.slice(votes.length).map(modelName);
  report.votesSaved += notAsked.length;
  transaction(ctx.db, () => {
    replaceLabelVotes(ctx.db, request.kind, q.id, [
      ...votes.map((v) => ({ model: v.model, verdict: 'voted' as const, label: v.label, reason: v.reason, provenance_id: llmProvenance(ctx, stage, v.ref, v.prompt, v.callId) })),
      ...notAsked.map((model) => ({ model, verdict: 'not_needed' as const, label: null, reason: 'the outcome was decided before this model was asked', provenance_id: null })),
    ]);
    const label = outcome.state === 'decided' ? outcome.label : null;
    const ruleText = typeof rule === 'string' ? rule : `at least ${rule.atLeast}`;
    const provenance = label === null ? null : getOrCreateProvenance(ctx.db, { source: 'llm', detail: `labelling stage, rule "${ruleText}"`, model: votes.map((v) => v.model).join(', '), promptVersion: ctx.prompts.get(stage) ? `${stage}@v${ctx.prompts.get(stage)!.version}` : null, callId: null });
    if (request.kind === 'answerability') setBaseQuestionAnswerability(ctx.db, q.id, label as Answerability | null, provenance);
    else setInstanceDomain(ctx.db, { baseQuestionId: q.id }, label as Domain | null, provenance);
    const reason = label !== null ? `${request.kind}: ${label}` : `${request.kind}: ${outcome.state === 'none' ? outcome.reason : 'no consensus'} (${votes.map((v) => `${v.model}: ${v.label}`).join('; ')})`;
    markItem(ctx.db, stage, item, 'done', ctx.runId, reason);
  });
  if (outcome.state === 'decided') {
    report.labelled++;
    report.counts[outcome.label] = (report.counts[outcome.label] ?? 0) + 1;
  } else report.noConsensus++;
}
