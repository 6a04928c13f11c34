import { findDatasetByName } from '../../../db/queries/datasets';
import { callsPerStage } from '../../../db/queries/llm-calls';
import { campaignDatasetNames } from '../../../db/queries/campaigns';
import { releaseCandidates, releaseSources, type ReleaseFilter } from '../../../db/queries/instances-selection';
import type { LabelCountRow } from '../../../db/queries/instances-labels';
import { constructionStatusCounts } from '../../../db/queries/instances';
import { roundTotals } from '../../../db/queries/construction-rounds';
import { labelTables, roundFunnel, type LabelTables, type RoundFunnel } from '../../../shared/construction';
import { promptVersionsPerStage } from '../../../db/queries/provenance';
import { findRelease } from '../../../db/queries/releases';
import type { ReadableDB, WritableDB } from '../../../db/sql';
import { changeStamp } from '../../../db/queries/stats';
import { schemaVersion } from '../../../db/migrate';
import { majorityLabel } from '../../../shared/agreement';
import { AppError, type ReleaseDraft } from '../../../shared/api';
import { AMBIGUITY_TYPES, DOMAINS, type AmbiguityType, type Answerability, type Domain } from '../../../shared/domain';
import { addToStats, countWords, type AgreementSummary, type CardInput, type FunnelSummary, type StatTable } from '../../../shared/release/card';
import { evaluateGate, type GateMeasures } from '../../../shared/release/gate';
import { checkLicence, type LicenceCheck, type SourceLicence } from '../../../shared/release/licence';
import { keyOf } from '../../../shared/release/schema';
import { assignSplits, seededKeyHash, sourceSplitName } from '../../../shared/release/splits';
import { agreementInput, agreementOfInput } from '../annotation/agreement';
import { costPerKept } from '../pipeline/cost';
import { funnelSteps } from '../pipeline/funnel';

/**
 * The first pass over a release's selection: which instances, in which split, their statistics,
 * the campaign's agreement and verdicts, the gate and the licence. It reads only; `release:preview`
 * shows it and `release:create` writes from it. Per instance it keeps a few typed-array entries
 * (about 20 bytes), never the instances themselves.
 */

export interface ReleasePlan {
  draft: ReleaseDraft;
  filter: ReleaseFilter;
  /** Instance ids in key order, and each one's split index. */
  ids: Float64Array;
  types: Uint8Array;
  splitOf: Uint8Array;
  splits: string[];
  count: number;
  counts: Record<string, number>;
  perType: Record<string, number>;
  stats: StatTable;
  sources: SourceLicence[];
  licence: LicenceCheck;
  agreement: AgreementSummary | null;
  funnel: FunnelSummary | null;
  gate: ReturnType<typeof evaluateGate>;
  /** Refusals that --force does not override. */
  problems: { code: 'invalid_input' | 'conflict'; message: string }[];
  /** Those of them that come from the selection, not from the draft's name and version. */
  selectionProblems: { code: 'invalid_input' | 'conflict'; message: string }[];
  /** Only-valid: the campaign's instances with a positive verdict. */
  card: Omit<CardInput, 'gate' | 'licenceForced'>;
}

class Column<T extends Int32Array | Uint8Array | Float64Array | Int16Array | Uint16Array> {
  data: T;
  length = 0;
  constructor(private readonly make: (n: number) => T) {
    this.data = make(1024);
  }
  push(value: number): void {
    if (this.length === this.data.length) {
      const next = this.make(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = value;
  }
}

interface CampaignFacts {
  summary: AgreementSummary;
  /** Instance ids in the campaign, with whether every yes/no criterion's verdict is YES. */
  verdicts: Map<number, boolean>;
  /** Annotators with at least one judgment, per instance. */
  judges: Map<number, number>;
  criteria: NonNullable<GateMeasures['criteria']>;
  unresolved: number;
}

function campaignFacts(db: ReadableDB, campaignId: number, datasets: readonly string[]): CampaignFacts {
  // The judgments are read once: the same matrix gives the report and each instance's verdict.
  const gathered = agreementInput(db, campaignId);
  const report = agreementOfInput(db, campaignId, gathered, { resamples: 1000, seed: 1 });
  const judgedDatasets = campaignDatasetNames(db, campaignId);
  if (datasets.length) {
    const outside = judgedDatasets.filter((d) => !datasets.includes(d));
    if (outside.length) {
      throw new AppError(
        'invalid_input',
        `Campaign ${campaignId} ("${report.campaign.name}") judged instances of ${outside.map((d) => `"${d}"`).join(', ')}, which this release does not select; link a campaign of the selected datasets.`,
      );
    }
  }
  const { input } = gathered;
  const yesno = input.criteria.filter((c) => c.scale.kind === 'yesno');
  const labelOf = (criterion: string, i: number) =>
    input.adjudications.get(criterion)?.get(input.items[i]!.id) ?? majorityLabel(input.ratings.get(criterion)?.[i] ?? []);
  const verdicts = new Map<number, boolean>();
  const judges = new Map<number, number>();
  let ties = 0;
  input.items.forEach((item, i) => {
    verdicts.set(item.id, yesno.length > 0 && yesno.every((c) => labelOf(c.id, i) === 'yes'));
    let n = 0;
    input.raters.forEach((_, r) => {
      if (input.criteria.some((c) => (input.ratings.get(c.id)?.[i]?.[r] ?? null) !== null)) n++;
    });
    judges.set(item.id, n);
    for (const c of yesno) {
      const ratings = input.ratings.get(c.id)?.[i] ?? [];
      if (ratings.some((r) => r !== null) && labelOf(c.id, i) === null) ties++;
    }
  });
  const overall = report.rows.filter((r) => r.ambiguityType === 'all' && yesno.some((c) => c.id === r.criterion));
  // MIRAGE Table 3: every judged instance (before filtering) against those the filter kept.
  const statuses = new Set(input.items.map((i) => i.status));
  let beforeAfter: AgreementSummary['beforeAfter'] = null;
  if (statuses.has('ready') && statuses.size > 1) {
    beforeAfter = [];
    const types = [...new Set(input.items.map((i) => i.type))].sort();
    const rate = (criterion: string | null, keep: (i: number) => boolean) => {
      const rated = input.items.map((_, i) => i).filter((i) => keep(i) && yesno.some((c) => (input.ratings.get(c.id)?.[i] ?? []).some((r) => r !== null)));
      if (!rated.length) return null;
      const yes = rated.filter((i) => (criterion === null ? yesno.every((c) => labelOf(c.id, i) === 'yes') : labelOf(criterion, i) === 'yes')).length;
      return yes / rated.length;
    };
    for (const criterion of [...yesno.map((c) => c.id), null]) {
      for (const type of [...types, 'all']) {
        const ofType = (i: number) => type === 'all' || input.items[i]!.type === type;
        beforeAfter.push({
          criterion: criterion ?? 'all_valid',
          type,
          before: rate(criterion, ofType),
          after: rate(criterion, (i) => ofType(i) && input.items[i]!.status === 'ready'),
        });
      }
    }
  }
  const first = report.rows[0];
  return {
    summary: {
      campaign: report.campaign,
      items: first?.items ?? input.items.length,
      raters: first?.raters ?? input.raters.length,
      criteria: yesno.map((c) => ({ id: c.id, label: c.label })),
      rows: report.rows
        .filter((r) => yesno.some((c) => c.id === r.criterion))
        .map((r) => ({ criterion: r.criterion, type: r.ambiguityType, yesRate: r.yesRate, kappa: r.fleissKappa, ciLow: r.kappaCiLow, ciHigh: r.kappaCiHigh, ac1: r.gwetAc1, pBar: r.pBar })),
      allValid: Object.fromEntries(report.validity.map((v) => [v.ambiguityType, v.allValidRate])),
      beforeAfter,
    },
    verdicts,
    judges,
    criteria: overall.map((r) => ({ id: r.criterion, fleissKappa: r.fleissKappa, ac1: r.gwetAc1, yesRate: r.yesRate })),
    unresolved: report.conflicts + ties,
  };
}

function funnelFacts(db: WritableDB, datasets: readonly string[], datasetIds: readonly number[]): FunnelSummary | null {
  const funnel = funnelSteps(db, datasets.map((name) => findDatasetByName(db, name)!.id));
  const calls = callsPerStage(db, datasetIds);
  const reached = funnel.rows.slice(1).some((r) => r.total > 0);
  if (!reached && !calls.length) return null;
  const prompts = new Map<string, string[]>();
  for (const p of promptVersionsPerStage(db, datasetIds)) prompts.set(p.stage, [...(prompts.get(p.stage) ?? []), p.prompt_version]);
  return {
    types: funnel.types,
    rows: reached ? funnel.rows : [],
    calls: calls.map((c) => ({ stage: c.stage || '—', model: c.model, calls: c.calls, costUsd: c.unpriced ? (c.cost || null) : c.cost, unpriced: c.unpriced })),
    prompts: [...prompts].map(([stage, versions]) => ({ stage: stage || '—', versions })),
    costPerKept: costPerKept(db, { datasetIds }),
  };
}

/** Topics and answerability of the released instances, and the rounds of the datasets built in rounds. */
function releaseLabels(db: WritableDB, labelCounts: LabelCounts, datasets: readonly string[]): { labels: LabelTables; rounds: RoundFunnel[] } {
  const rounds = datasets.flatMap((name) => {
    const id = findDatasetByName(db, name)!.id;
    const counts = constructionStatusCounts(db, id);
    const total = counts.building + counts.ready + counts.removed;
    return total ? [roundFunnel(name, { total, accepted: counts.ready, removed: counts.removed, building: counts.building }, roundTotals(db, id))] : [];
  });
  return { labels: labelTables(labelCounts.rows(), DOMAINS), rounds };
}

/**
 * The released instances counted by type, topic and answerability as the plan reads them, so the
 * card's tables need no second pass over a million instances. Rows come out in the order SQLite's
 * GROUP BY gave them (nulls first, then binary order), which the card's tables keep.
 */
class LabelCounts {
  private readonly counts = new Map<string, LabelCountRow>();

  add(type: AmbiguityType, domain: Domain | null, answerability: Answerability | null): void {
    const key = `${type}\u0000${domain ?? '\u0001'}\u0000${answerability ?? '\u0001'}`;
    const row = this.counts.get(key);
    if (row) row.n++;
    else this.counts.set(key, { ambiguity_type: type, domain, answerability, n: 1 });
  }

  rows(): LabelCountRow[] {
    const order = (a: string | null, b: string | null) => (a === b ? 0 : a === null ? -1 : b === null ? 1 : a < b ? -1 : 1);
    return [...this.counts.values()].sort((a, b) => order(a.ambiguity_type, b.ambiguity_type) || order(a.domain, b.domain) || order(a.answerability, b.answerability));
  }
}

function selectionText(draft: ReleaseDraft): string {
  const s = draft.selection;
  const parts = [
    s.datasets.length ? `datasets ${s.datasets.map((d) => `"${d}"`).join(', ')}` : 'every dataset',
    s.types.length ? `types ${s.types.join(', ')}` : 'every ambiguity type',
    s.statuses.length ? `statuses ${s.statuses.join(', ')}` : 'every status',
  ];
  if (s.campaignId !== null) parts.push(`${s.onlyValid ? 'only instances validated in' : 'validated in'} campaign ${s.campaignId}`);
  return parts.join('; ');
}

/** Refusals that hold whatever the gate says. */
function draftProblems(db: ReadableDB, draft: ReleaseDraft): ReleasePlan['problems'] {
  const problems: ReleasePlan['problems'] = [];
  if (findRelease(db, draft.name, draft.version)) {
    problems.push({ code: 'conflict', message: `Release "${draft.name}" ${draft.version} already exists; a release is never overwritten: choose a new version.` });
  }
  return problems;
}

/**
 * The card's pipeline funnel of a plan made with `deferFunnel`: creating a release counts it while
 * the encoders work, not before they start.
 */
export function completeFunnel(db: WritableDB, plan: ReleasePlan): void {
  if (!plan.count) return;
  const datasetNames = plan.draft.selection.datasets.length ? plan.draft.selection.datasets : plan.sources.map((s) => s.dataset);
  plan.funnel = plan.card.funnel = funnelFacts(db, datasetNames, plan.filter.datasetIds);
}

export function planRelease(db: WritableDB, draft: ReleaseDraft, options: { appVersion: string; date: string; deferFunnel?: boolean }): ReleasePlan {
  const datasetIds = draft.selection.datasets.map((name) => {
    const row = findDatasetByName(db, name);
    if (!row) throw new AppError('not_found', `No dataset named "${name}"`);
    return row.id;
  });
  const filter: ReleaseFilter = { datasetIds, types: draft.selection.types, statuses: draft.selection.statuses };
  const campaign = draft.selection.campaignId === null ? null : campaignFacts(db, draft.selection.campaignId, draft.selection.datasets);

  const ids = new Column((n) => new Float64Array(n));
  const groups = new Column((n) => new Uint8Array(n));
  const hashes = new Column((n) => new Float64Array(n));
  const interpretations = new Column((n) => new Uint16Array(n));
  const hops = new Column((n) => new Int16Array(n));
  const words = new Column((n) => new Uint16Array(n));
  const sourceSplits: string[] = [];
  const sourceSplitIndex = new Map<string, number>();
  const sourceOf = new Column((n) => new Uint8Array(n));
  const seed = draft.split.mode === 'fractions' ? draft.split.seed : 0;
  let judgedInRelease = 0;
  let fewestJudges: number | null = null;
  const verdicts = draft.selection.onlyValid ? (campaign?.verdicts ?? new Map<number, boolean>()) : null;
  const labelCounts = new LabelCounts();
  for (const [id, dataset, sourceId, type, , hop, interpretationCount, question, sourceSplit, domain, answerability] of releaseCandidates(db, filter)) {
    if (verdicts && verdicts.get(id) !== true) continue;
    ids.push(id);
    labelCounts.add(type, domain, answerability);
    groups.push(AMBIGUITY_TYPES.indexOf(type));
    hashes.push(seededKeyHash(seed, keyOf(dataset, sourceId, type)));
    interpretations.push(Math.min(interpretationCount, 65_535));
    hops.push(hop ?? -1);
    words.push(Math.min(countWords(question), 65_535));
    if (draft.split.mode === 'source') {
      const name = sourceSplitName(sourceSplit, dataset);
      let index = sourceSplitIndex.get(name);
      if (index === undefined) {
        if (sourceSplits.length >= 255) throw new AppError('invalid_input', 'More than 255 source splits; use fractions instead.');
        index = sourceSplits.length;
        sourceSplits.push(name);
        sourceSplitIndex.set(name, index);
      }
      sourceOf.push(index);
    }
    if (campaign) {
      // An instance the campaign never judged counts as judged by nobody: the gate's "judgments
      // per instance" is over the whole selection, not only over what happened to be judged.
      const judges = campaign.judges.get(id) ?? 0;
      if (judges > 0) judgedInRelease++;
      fewestJudges = fewestJudges === null ? judges : Math.min(fewestJudges, judges);
    }
  }
  const count = ids.length;
  let splits: string[];
  let splitOf: Uint8Array;
  if (draft.split.mode === 'fractions') {
    splits = Object.keys(draft.split.fractions);
    splitOf = assignSplits(groups.data, hashes.data, count, Object.values(draft.split.fractions));
  } else {
    // Source splits in name order, so the files and the card list them the same way every time.
    const order = sourceSplits.map((name, i) => ({ name, i })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const remap = new Uint8Array(order.length);
    order.forEach((o, k) => (remap[o.i] = k));
    splits = order.map((o) => o.name);
    splitOf = new Uint8Array(count);
    for (let i = 0; i < count; i++) splitOf[i] = remap[sourceOf.data[i]!]!;
  }

  const stats: StatTable = new Map();
  const counts: Record<string, number> = Object.fromEntries(splits.map((s) => [s, 0]));
  const perType: Record<string, number> = {};
  for (let i = 0; i < count; i++) {
    const split = splits[splitOf[i]!]!;
    const type = AMBIGUITY_TYPES[groups.data[i]!]!;
    counts[split]!++;
    perType[type] = (perType[type] ?? 0) + 1;
    const h = hops.data[i]!;
    addToStats(stats, split, type, interpretations.data[i]!, h < 0 ? null : h, words.data[i]!);
  }

  const selectionProblems: ReleasePlan['problems'] = [];
  if (!count) selectionProblems.push({ code: 'invalid_input', message: 'The selection matches no instances: widen it (datasets, types, statuses) or check the campaign.' });
  if (campaign && count && !judgedInRelease) {
    selectionProblems.push({ code: 'invalid_input', message: `Campaign ${draft.selection.campaignId} judged none of the selected instances; link the campaign that validated them.` });
  }
  const sources = releaseSources(db, filter).map((s) => ({ dataset: s.name, licence: s.licence, attribution: s.attribution, url: s.url }));
  const licence = checkLicence(sources, draft.licence);
  const gate = evaluateGate(draft.gate, {
    criteria: campaign ? campaign.criteria : null,
    minJudgments: campaign ? fewestJudges : null,
    unresolved: campaign ? campaign.unresolved : null,
    coverage: campaign ? { campaignId: draft.selection.campaignId!, judged: judgedInRelease, selected: count } : null,
  });
  const datasetNames = draft.selection.datasets.length ? draft.selection.datasets : sources.map((s) => s.dataset);
  const funnel = count && !options.deferFunnel ? funnelFacts(db, datasetNames, datasetIds) : null;
  const extra = count ? releaseLabels(db, labelCounts, sources.map((s) => s.dataset)) : { labels: null, rounds: [] };
  return {
    draft,
    filter,
    ids: ids.data.subarray(0, count),
    types: groups.data.subarray(0, count),
    splitOf,
    splits,
    count,
    counts,
    perType,
    stats,
    sources,
    licence,
    agreement: campaign?.summary ?? null,
    funnel,
    gate,
    problems: [...draftProblems(db, draft), ...selectionProblems],
    selectionProblems,
    card: {
      name: draft.name,
      version: draft.version,
      description: draft.description,
      authors: draft.authors,
      date: options.date,
      appVersion: options.appVersion,
      schemaVersion: schemaVersion(db),
      splits,
      splitSpec: draft.split,
      stats,
      selectionText: selectionText(draft),
      licence,
      sources,
      funnel,
      agreement: campaign?.summary ?? null,
      thresholds: draft.gate,
      labels: extra.labels,
      rounds: extra.rounds,
    },
  };
}

const previews = new WeakMap<ReadableDB, { key: string; plan: ReleasePlan }>();

/**
 * The plan behind a release preview. The form asks for one on every change, a keystroke in the
 * description included, and planning reads every selected instance (seconds at a million); so the
 * last plan is kept and reused while the selection, splits, gate, day and data stay the same, with
 * the draft's own text (name, version, description, authors, licence) put in afresh. Publishing
 * always plans anew.
 */
export function previewPlan(db: WritableDB, draft: ReleaseDraft, options: { appVersion: string; date: string }): ReleasePlan {
  // Inside a transaction the plan may read rows not yet committed (a pending group of writes) that
  // a rollback would take back without changing the stamp: planned, and not kept.
  if (db.inTransaction) return planRelease(db, draft, options);
  const key = JSON.stringify([draft.selection, draft.split, draft.gate, options.date, options.appVersion, changeStamp(db)]);
  const held = previews.get(db);
  if (held?.key === key) return withDraftText(db, held.plan, draft);
  const plan = planRelease(db, draft, options);
  previews.set(db, { key, plan });
  return plan;
}

function withDraftText(db: ReadableDB, plan: ReleasePlan, draft: ReleaseDraft): ReleasePlan {
  const licence = checkLicence(plan.sources, draft.licence);
  const { name, version, description, authors } = draft;
  return { ...plan, draft, licence, problems: [...draftProblems(db, draft), ...plan.selectionProblems], card: { ...plan.card, name, version, description, authors, licence } };
}
