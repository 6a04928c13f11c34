import fs from 'node:fs';
import path from 'node:path';
import { findDatasetByName } from '../../../db/queries/datasets';
import { goldCitations, goldFragmentCounts, goldInstances, goldInterpretations, goldLongAnswers } from '../../../db/queries/evaluation-gold';
import { getRelease, releaseEntries } from '../../../db/queries/releases';
import { FrozenRecords } from '../release/frozen';
import type { ReadableDB } from '../../../db/sql';
import { AppError, type InvalidCitations, type ScoreGroup, type ScoreReport, type ScoreRequest } from '../../../shared/api';
import { conventionNote } from '../../../shared/eval/conventions';
import { aggregateByGroup, aggregateMetrics, invalidCitationNote, METRIC_NAMES, READER_METRIC_NAMES, resolveCitations, scoreItem, type GoldItem, type ItemMetrics, type MetricName, type MetricSummary } from '../../../shared/eval/metrics';
import { PUNKT_BUILTIN, type PunktParams } from '../../../shared/eval/punkt';
import { PredictionsError, PredictionsReader, type Prediction, type PredictionsFile } from '../../../shared/eval/predictions';
import { DEFAULT_MAX_RECORD_BYTES, readLines } from '../import/json-stream';
import { punktParams } from './punkt-params';

/**
 * `evaluation:score`: predictions made elsewhere, scored against the gold interpretations of a
 * dataset (its ready instances) or of a release's frozen instances, with every non-LLM metric.
 * Items are instances; a prediction names its question by the dataset's source id and is scored
 * against every instance of that question (one per ambiguity type). Items without a prediction
 * are scored as an empty answer and counted; ids that name no item are listed.
 */

export interface GoldEntry {
  sourceId: string;
  type: string;
  gold: GoldItem;
}

function parseAliases(json: string): string[] {
  try {
    const value = JSON.parse(json) as unknown;
    return Array.isArray(value) ? value.filter((a): a is string => typeof a === 'string' && a.trim() !== '') : [];
  } catch {
    return [];
  }
}

function groupBy<Row extends { instance_id: number }>(rows: readonly Row[]): Map<number, Row[]> {
  const out = new Map<number, Row[]>();
  for (const row of rows) {
    let list = out.get(row.instance_id);
    if (!list) out.set(row.instance_id, (list = []));
    list.push(row);
  }
  return out;
}

/** The gold items of a dataset's ready instances. */
export function goldFromDataset(db: ReadableDB, datasetId: number): GoldEntry[] {
  const interpretations = groupBy(goldInterpretations(db, datasetId));
  const longAnswers = groupBy(goldLongAnswers(db, datasetId));
  const citations = groupBy(goldCitations(db, datasetId));
  const fragments = new Map(goldFragmentCounts(db, datasetId).map((r) => [r.instance_id, r.n]));
  return goldInstances(db, datasetId).map((instance) => ({
    sourceId: instance.source_id,
    type: instance.ambiguity_type,
    gold: {
      interpretations: (interpretations.get(instance.id) ?? []).map((p) => (p.short_answer && p.short_answer.trim() !== '' ? [p.short_answer, ...parseAliases(p.answer_aliases)] : [])),
      longAnswers: (longAnswers.get(instance.id) ?? []).map((a) => a.text),
      citedFragments: (citations.get(instance.id) ?? []).map((c) => fragmentNames(c.rank, c.title, c.passage_source_id)),
      fragmentCount: fragments.get(instance.id) ?? null,
    },
  }));
}

/** Every name a cited fragment answers to: its rank, its passage's title and source id. */
function fragmentNames(rank: number, title: string, sourceId: string | null): string[] {
  return [String(rank), ...(title.trim() ? [title.trim()] : []), ...(sourceId ? [sourceId] : [])];
}

/** The frozen awb-instance/1 record of a release, read loosely: only what scoring needs. */
interface FrozenRecord {
  dataset?: { name?: string };
  base_question?: { source_id?: string };
  instance?: {
    ambiguity_type?: string;
    status?: string;
    evidence?: { passage?: string; rank?: number }[];
    interpretations?: { status?: string; short_answer?: { text?: string; aliases?: string[] } | null; citations?: number[] }[];
    long_answers?: { text?: string }[];
  };
  passages?: { id?: string; title?: string; source_id?: string | null }[];
}

/** The gold items of a release's frozen instances (one split, one dataset, when given). */
export function goldFromRelease(db: ReadableDB, releaseId: number, split: string | undefined, dataset: string | undefined): GoldEntry[] {
  if (!getRelease(db, releaseId)) throw new AppError('not_found', `No release ${releaseId}`);
  const entries = releaseEntries(db, releaseId).sort((a, b) => a.position - b.position);
  const splits = [...new Set(entries.map((e) => e.split))].sort();
  const frozen = new FrozenRecords(db, FrozenRecords.chunksFor(splits.length));
  if (split !== undefined && !splits.includes(split)) {
    throw new AppError('not_found', `Release ${releaseId} has no split "${split}"; its splits: ${splits.join(', ') || 'none'}`);
  }
  const out: GoldEntry[] = [];
  for (const entry of entries) {
    if (split !== undefined && entry.split !== split) continue;
    const record = frozen.record<FrozenRecord>(entry);
    if (dataset !== undefined && record.dataset?.name !== dataset) continue;
    const instance = record.instance ?? {};
    const passages = new Map((record.passages ?? []).map((p) => [p.id ?? '', p]));
    const byRank = new Map((instance.evidence ?? []).map((e) => [e.rank ?? 0, passages.get(e.passage ?? '')]));
    const active = (instance.interpretations ?? []).filter((i) => i.status !== 'dropped');
    const cited = [...new Set(active.flatMap((i) => i.citations ?? []))].sort((a, b) => a - b);
    out.push({
      sourceId: record.base_question?.source_id ?? entry.key,
      type: instance.ambiguity_type ?? 'unspecified',
      gold: {
        interpretations: active.map((i) => (i.short_answer?.text ? [i.short_answer.text, ...(i.short_answer.aliases ?? []).filter((a) => a.trim() !== '')] : [])),
        longAnswers: (instance.long_answers ?? []).map((a) => a.text ?? '').filter((t) => t.trim() !== ''),
        citedFragments: cited.map((rank) => {
          const passage = byRank.get(rank);
          return fragmentNames(rank, passage?.title ?? '', passage?.source_id ?? null);
        }),
        fragmentCount: instance.evidence?.length ? instance.evidence.length : null,
      },
    });
  }
  return out;
}

export interface ScoreOptions {
  metrics?: readonly MetricName[];
  rouge?: 'rougeLsum' | 'rougeL';
  punkt?: PunktParams;
  resamples?: number;
  seed?: number;
}

const EMPTY: Omit<Prediction, 'sourceId' | 'line'> = { answer: '', shortAnswers: [], citations: [] };

function group(items: ItemMetrics[], summaries: Record<string, MetricSummary>): ScoreGroup {
  return { n: items.length, metrics: Object.fromEntries(Object.entries(summaries).map(([name, s]) => [name, s.value])), details: summaries };
}

/**
 * Scores predictions against gold items: the core of `evaluation:score`, on one thread. A worker
 * thread beside it made scoring slower on this two-core machine at every size measured (2,000,
 * 10,000 and 100,000 items; docs/benchmarks.md): scoring allocates much, and the garbage
 * collectors' helper threads of two busy threads compete for the two cores.
 */
export function scoreAgainstGold(gold: readonly GoldEntry[], predictions: ReadonlyMap<string, Prediction>, options: ScoreOptions = {}) {
  const metrics = options.metrics ?? METRIC_NAMES;
  const known = new Set(gold.map((g) => g.sourceId));
  const unknown = [...predictions.keys()].filter((id) => !known.has(id));
  let missing = 0;
  const invalidCitations: InvalidCitations = { items: 0, examples: [] };
  const answered = gold.map((entry) => {
    const prediction = predictions.get(entry.sourceId);
    if (!prediction) missing++;
    else noteInvalidCitations(invalidCitations, entry, prediction);
    return prediction ?? EMPTY;
  });
  const itemOptions = { metrics, variant: options.rouge ?? 'rougeLsum', stemming: true, punkt: options.punkt ?? PUNKT_BUILTIN };
  const items = answered.map((prediction, k) => scoreItem(prediction, gold[k]!.gold, itemOptions));
  const aggregate = { metrics, resamples: options.resamples ?? 1000, seed: options.seed ?? 1 };
  const overall = group(items, aggregateMetrics(items, aggregate));
  const types = aggregateByGroup(items, (k) => gold[k]!.type, aggregate);
  const byType = Object.fromEntries(
    Object.entries(types)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([type, summaries]) => [
        type,
        group(
          items.filter((_, k) => gold[k]!.type === type),
          summaries,
        ),
      ]),
  );
  return { ...overall, missing, unknown, invalidCitations, byType, items };
}

/** Counts a prediction that cites fragment numbers its question does not have, keeping the first 20 as examples. */
function noteInvalidCitations(into: InvalidCitations, entry: GoldEntry, prediction: Prediction): void {
  const count = entry.gold.fragmentCount ?? null;
  if (count === null || !prediction.citations?.length) return;
  const { invalid } = resolveCitations(prediction.citations, entry.gold);
  if (invalid.length === 0) return;
  into.items++;
  if (into.examples.length < 20) into.examples.push({ sourceId: entry.sourceId, line: prediction.line, note: invalidCitationNote(invalid, count) });
}

/** How each metric was computed, from the one table of conventions (shared/eval/conventions.ts), with this report's settings. */
function notes(metrics: readonly string[], options: Required<Pick<ScoreOptions, 'rouge' | 'resamples' | 'seed'>> & { punkt: string }): Record<string, string> {
  const out: Record<string, string> = {
    normalisation: 'SQuAD: lower-case, ASCII punctuation removed, articles a/an/the removed, white space collapsed',
  };
  for (const metric of metrics) out[metric] = conventionNote(metric) ?? metric;
  if (metrics.includes('rouge_l')) out.rouge_l += ` Variant: ${options.rouge}; Punkt parameters: ${options.punkt}.`;
  out.reader_metrics = 'disambig_f1, dr and march_avg need the extractive reader and come from evaluation runs, not from evaluation:score';
  out.intervals = options.resamples > 0 ? `95% percentile bootstrap over items, ${options.resamples} resamples, seed ${options.seed}` : 'none (resamples 0)';
  out.missing = 'items without a prediction are scored as an empty answer with no short answers and no citations';
  out.citations = 'a cited number the question does not have counts as a wrong citation; such predictions are counted in invalidCitations';
  return out;
}

/** The largest line of a predictions file, as the importers' largest record. */
export const MAX_PREDICTION_LINE_BYTES = DEFAULT_MAX_RECORD_BYTES;

/**
 * Reads a predictions file as a stream, line by line: a line over MAX_PREDICTION_LINE_BYTES is
 * refused by its size without being held, so a huge line costs neither the memory nor the time
 * that parsing and scoring it would.
 */
async function readPredictions(file: string): Promise<PredictionsFile> {
  const label = path.basename(file);
  try {
    if (!fs.statSync(file).isFile()) throw new AppError('invalid_input', `${file} is not a file`);
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw new AppError('not_found', `Cannot read the predictions file ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  const reader = new PredictionsReader(label);
  for await (const line of readLines(file, { maxLineBytes: MAX_PREDICTION_LINE_BYTES })) {
    if (line.bytes === null) reader.oversized(line.line, line.size, MAX_PREDICTION_LINE_BYTES);
    else reader.add(line.line, line.bytes.toString('utf8'));
  }
  try {
    return reader.finish();
  } catch (error) {
    if (error instanceof PredictionsError) throw new AppError('invalid_input', error.message, { problems: error.problems });
    throw error;
  }
}

/** The `evaluation:score` handler. */
export async function scorePredictionsFile(db: ReadableDB, request: ScoreRequest): Promise<ScoreReport> {
  const wanted = request.metrics ?? [...METRIC_NAMES];
  const reader = wanted.filter((m) => (READER_METRIC_NAMES as readonly string[]).includes(m));
  if (reader.length) {
    const message = `${reader.join(' and ')} ${reader.length === 1 ? 'needs' : 'need'} the extractive reader (an LLM call on each clarified question) and ${reader.length === 1 ? 'is' : 'are'} computed by evaluation runs; evaluation:score computes ${METRIC_NAMES.join(', ')}`;
    // Marked as a refusal of the input (details.issues), as the schema's own refusals are.
    throw new AppError('invalid_input', `evaluation:score: metrics: ${message}`, { issues: [{ path: 'metrics', message }] });
  }
  let gold: GoldEntry[];
  if (request.release !== undefined) {
    gold = goldFromRelease(db, request.release, request.split, request.dataset);
  } else {
    const dataset = findDatasetByName(db, request.dataset!);
    if (!dataset) throw new AppError('not_found', `No dataset named "${request.dataset}"`);
    gold = goldFromDataset(db, dataset.id);
  }
  if (gold.length === 0) {
    const where =
      request.release !== undefined
        ? `release ${request.release}${request.split ? ` split ${request.split}` : ''}${request.dataset ? ` (dataset ${request.dataset})` : ''}`
        : `dataset "${request.dataset}"`;
    throw new AppError('not_found', `Nothing to score: ${where} has no ready instances`);
  }
  const label = path.basename(request.predictions);
  const parsed = await readPredictions(request.predictions);
  if (parsed.predictions.size === 0) throw new AppError('invalid_input', `${label}: no predictions in the file`);
  const punkt = punktParams();
  const options = { metrics: wanted as MetricName[], rouge: request.rouge, resamples: request.resamples, seed: request.seed, punkt };
  const result = scoreAgainstGold(gold, parsed.predictions, options);
  if (result.unknown.length === parsed.predictions.size) {
    const first = [...parsed.predictions.values()][0]!;
    const where = request.release !== undefined ? `release ${request.release}${request.split ? ` split ${request.split}` : ''}` : `dataset "${request.dataset}"`;
    throw new AppError(
      'invalid_input',
      `${label}: none of its ${parsed.predictions.size} ids names a question of ${where} (line ${first.line}: "${first.sourceId}"); are these another dataset's predictions?`,
      { unknown: result.unknown.slice(0, 1000) },
    );
  }
  const { items: _items, ...figures } = result;
  return {
    dataset: request.dataset ?? null,
    release: request.release ?? null,
    split: request.split ?? null,
    predictionsFile: request.predictions,
    predictions: parsed.predictions.size,
    ...figures,
    notes: notes(wanted, { rouge: request.rouge, resamples: request.resamples, seed: request.seed, punkt: punkt.source }),
  };
}
