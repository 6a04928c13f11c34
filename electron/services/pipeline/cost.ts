import { detectionVoteCounts } from '../../../db/queries/detection-votes';
import { filterNotNeeded } from '../../../db/queries/filter-votes';
import { keptByType, mergesSkipped } from '../../../db/queries/pipeline-items';
import { datasetSpend, runSpend, type SpendRow } from '../../../db/queries/llm-calls';
import { listPrices } from '../../../db/queries/model-prices';
import type { ReadableDB } from '../../../db/sql';
import { RUN_STAGES, type CostPerKept, type PerKept, type Price, type Spend } from '../../../shared/pipeline';
import { PriceTable } from './budget';

/**
 * Cost per kept instance (issue 26, item 1): what the calls spent, per stage and per ambiguity
 * type, divided by the instances kept. Per type, a stage's spend is divided by that type's kept
 * instances (a detector's call about one type counts for it); calls with no type (none here, but
 * possible in imported calls) count in the totals only. Money is null wherever a model without a
 * price took part: unknown, never zero.
 *
 * Beside it, for one run, the same run asking everyone synchronously: each vote not asked at the
 * mean tokens and cost of that model's asked calls in that stage and type, each merge skipped
 * (an instance removed at shortening or a collision before merging) at the mean merge call, and
 * every batch call at its synchronous price. Answers not asked (an instance that could not reach
 * two) are left out, so this slightly understates what asking everyone costs; the bench runs
 * both ways instead.
 */

type Totals = { tokens: number; usd: number; unpriced: boolean; calls: number; batchCalls: number; syncUsd: number; cached: number };
const zero = (): Totals => ({ tokens: 0, usd: 0, unpriced: false, calls: 0, batchCalls: 0, syncUsd: 0, cached: 0 });
const bareModel = (model: string) => model.slice(model.indexOf('/') + 1);

function add(t: Totals, r: SpendRow, prices: PriceTable): void {
  t.tokens += r.promptTokens + r.completionTokens;
  t.usd += r.costUsd;
  t.unpriced ||= r.unpriced > 0;
  t.calls += r.calls;
  if (r.mode === 'batch') t.batchCalls += r.calls;
  t.cached += r.cachedPromptTokens;
  t.syncUsd += r.mode === 'sync' ? r.costUsd : (prices.cost(bareModel(r.model), 'sync', r.promptTokens, r.completionTokens, r.cachedPromptTokens) ?? 0);
}

const spendOf = (t: Totals): Spend => ({ tokens: t.tokens, usd: t.unpriced ? null : t.usd });
const perKept = (s: Spend, kept: number): PerKept => ({ tokens: kept ? s.tokens / kept : null, usd: kept && s.usd !== null ? s.usd / kept : null });

export function costPerKept(db: ReadableDB, scope: { runId: number } | { datasetIds: readonly number[] }, configPrices: Readonly<Record<string, Price>> = {}): CostPerKept {
  const prices = new PriceTable(listPrices(db), configPrices);
  const rows = 'runId' in scope ? runSpend(db, scope.runId) : datasetSpend(db, scope.datasetIds);
  const kept = keptByType(db, scope);
  const keptTotal = Object.values(kept).reduce((a, b) => a + b, 0);
  const total = zero();
  const byType = new Map<string, Totals>();
  const byStage = new Map<string, { all: Totals; types: Map<string, Totals> }>();
  for (const r of rows) {
    add(total, r, prices);
    const stage = byStage.get(r.stage) ?? { all: zero(), types: new Map<string, Totals>() };
    byStage.set(r.stage, stage);
    add(stage.all, r, prices);
    if (r.type === null) continue;
    if (!stage.types.has(r.type)) stage.types.set(r.type, zero());
    add(stage.types.get(r.type)!, r, prices);
    if (!byType.has(r.type)) byType.set(r.type, zero());
    add(byType.get(r.type)!, r, prices);
  }
  const skipped = 'runId' in scope ? notAsked(db, scope.runId, rows, prices) : { votes: 0, tokens: 0, usd: 0 };
  const everyone: Spend = { tokens: total.tokens + skipped.tokens, usd: total.unpriced ? null : total.syncUsd + skipped.usd };
  const ordered = [...byStage.keys()].sort((a, b) => RUN_STAGES.indexOf(a as never) - RUN_STAGES.indexOf(b as never));
  return {
    kept: { total: keptTotal, byType: kept },
    stages: ordered.map((stage) => {
      const s = byStage.get(stage)!;
      return {
        stage,
        spend: spendOf(s.all),
        perKept: perKept(spendOf(s.all), keptTotal),
        calls: s.all.calls,
        batchCalls: s.all.batchCalls,
        byType: Object.fromEntries([...s.types].map(([type, t]) => [type, { spend: spendOf(t), perKept: perKept(spendOf(t), kept[type] ?? 0) }])),
      };
    }),
    total: { spend: spendOf(total), perKept: perKept(spendOf(total), keptTotal), calls: total.calls, batchCalls: total.batchCalls, cachedPromptTokens: total.cached },
    byType: Object.fromEntries([...byType].map(([type, t]) => [type, { spend: spendOf(t), perKept: perKept(spendOf(t), kept[type] ?? 0) }])),
    notNeeded: { votes: skipped.votes, spend: { tokens: skipped.tokens, usd: total.unpriced ? null : skipped.usd } },
    askEveryoneSync: {
      spend: everyone,
      perKept: perKept(everyone, keptTotal),
      tokensRatio: everyone.tokens ? total.tokens / everyone.tokens : null,
      usdRatio: everyone.usd && !total.unpriced ? total.usd / everyone.usd : null,
    },
    unpriced: [...new Set(rows.filter((r) => r.unpriced > 0).map((r) => r.model))],
  };
}

/** Votes and merges a run did not ask, each at the mean of its model's asked calls in that stage and type (synchronous prices). */
function notAsked(db: ReadableDB, runId: number, rows: SpendRow[], prices: PriceTable): { votes: number; tokens: number; usd: number } {
  const mean = (stage: string, type: string | null, model: string | null) => {
    const matching = rows.filter((r) => r.stage === stage && (type === null || r.type === type) && (model === null || r.model === model));
    const calls = matching.reduce((n, r) => n + r.calls, 0);
    if (!calls) return { tokens: 0, usd: 0 };
    const tokens = matching.reduce((n, r) => n + r.promptTokens + r.completionTokens, 0) / calls;
    const usd = matching.reduce((n, r) => n + (prices.cost(bareModel(r.model), 'sync', r.promptTokens, r.completionTokens, r.cachedPromptTokens) ?? 0), 0) / calls;
    return { tokens, usd };
  };
  const skipped = [
    ...detectionVoteCounts(db, runId).filter((r) => r.verdict === 'not_needed').map((r) => ({ stage: 'detect', type: r.ambiguity_type, model: r.model as string | null, n: r.n, vote: true })),
    ...filterNotNeeded(db, runId).map((r) => ({ stage: 'filter', type: r.type, model: r.model as string | null, n: r.n, vote: true })),
    ...mergesSkipped(db, runId).map((r) => ({ stage: 'merge', type: r.type, model: null, n: r.n, vote: false })),
  ];
  let votes = 0;
  let tokens = 0;
  let usd = 0;
  for (const s of skipped) {
    // A model never asked in that stage and type: its mean over every type, then the stage's.
    let m = mean(s.stage, s.type, s.model);
    if (!m.tokens) m = mean(s.stage, null, s.model);
    if (!m.tokens) m = mean(s.stage, null, null);
    if (s.vote) votes += s.n;
    tokens += m.tokens * s.n;
    usd += m.usd * s.n;
  }
  return { votes, tokens, usd };
}
