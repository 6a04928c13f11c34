import { findDatasetByName } from '../../../db/queries/datasets';
import { FrozenRecords } from '../release/frozen';
import { datasetInstanceIds } from '../../../db/queries/instances';
import { findReleaseByName, releaseSplitEntries } from '../../../db/queries/releases';
import type { ReadableDB } from '../../../db/sql';
import { AppError } from '../../../shared/api';
import type { AwbRecord } from '../../../shared/awb-format';
import { passageKey, type EvalGold, type Fragment, type GoldInterpretation } from '../../../shared/eval/types';
import { instanceDetail } from '../browse';

/**
 * The items a run takes, with their gold side frozen into the item when the run starts: from a
 * release's stored records (its frozen content), or from a dataset's current instances.
 */

export interface SourceItem {
  key: string;
  instanceId: number | null;
  ambiguityType: string;
  gold: EvalGold;
}

export interface Source {
  kind: 'release' | 'dataset';
  label: string;
  releaseId: number | null;
  split: string | null;
  datasetId: number | null;
  items: SourceItem[];
}

function answersOf(answer: { text: string; aliases: string[] } | null): string[] {
  return answer ? [answer.text, ...answer.aliases.filter((a) => a !== answer.text)] : [];
}

/** The gold of a frozen awb-instance/1 record. */
export function goldOfRecord(record: AwbRecord): EvalGold {
  const instance = record.instance!;
  const keyOf = new Map(record.passages.map((p) => [p.id, passageKey({ corpus: p.corpus, sourceId: p.source_id, title: p.title, text: p.text })]));
  const passageOf = new Map(record.passages.map((p) => [p.id, p]));
  const key = (ref: string | null) => (ref === null ? null : (keyOf.get(ref) ?? ref));
  const fragments: Fragment[] = instance.evidence.map((e) => ({ rank: e.rank, title: passageOf.get(e.passage)?.title ?? '', text: passageOf.get(e.passage)?.text ?? '', key: key(e.passage)! }));
  const fragmentKey = new Map(fragments.map((f) => [f.rank, f.key]));
  const interpretations: GoldInterpretation[] = instance.interpretations
    .filter((i) => i.status === 'active')
    .map((i) => {
      const cited = i.citations.map((rank) => fragmentKey.get(rank)).filter((k): k is string => !!k);
      const answerPassage = i.short_answer?.passage ? [key(i.short_answer.passage)!] : [];
      return {
        question: i.clarified_question,
        condition: i.condition,
        answers: answersOf(i.short_answer),
        evidence: [...new Set([...i.evidence.map((e) => key(e.passage)!), ...answerPassage, ...cited])],
        cited,
      };
    });
  return { question: record.base_question.question, ambiguityType: instance.ambiguity_type, interpretations, longAnswers: instance.long_answers.map((a) => a.text), fragments };
}

/** The gold of an instance as it stands in the database. */
export function goldOfInstance(db: ReadableDB, instanceId: number): EvalGold {
  const detail = instanceDetail(db, instanceId);
  const fragments: Fragment[] = detail.evidence.map((e) => ({ rank: e.rank, title: e.passage.title, text: e.passage.text, key: passageKey(e.passage) }));
  const fragmentKey = new Map(fragments.map((f) => [f.rank, f.key]));
  const interpretations: GoldInterpretation[] = detail.interpretations
    .filter((i) => i.status === 'active')
    .map((i) => {
      const cited = i.citations.map((rank) => fragmentKey.get(rank)).filter((k): k is string => !!k);
      const answerPassage = i.answerPassage ? [passageKey(i.answerPassage)] : [];
      return {
        question: i.clarifiedQuestion,
        condition: i.condition,
        answers: answersOf(i.shortAnswer),
        evidence: [...new Set([...i.evidence.map((e) => passageKey(e.passage)), ...answerPassage, ...cited])],
        cited,
      };
    });
  return { question: detail.baseQuestion.question, ambiguityType: detail.ambiguityType, interpretations, longAnswers: detail.longAnswers.map((a) => a.text), fragments };
}

/** `name` (its latest version) or `name@version`. */
function parseRelease(text: string): { name: string; version: string | null } {
  const at = text.lastIndexOf('@');
  return at > 0 ? { name: text.slice(0, at), version: text.slice(at + 1) } : { name: text, version: null };
}

export function loadSource(db: ReadableDB, request: { release?: string | undefined; split?: string | undefined; dataset?: string | undefined; limit?: number | undefined }): Source {
  let source: Source;
  if (request.release) {
    const { name, version } = parseRelease(request.release);
    const release = findReleaseByName(db, name, version);
    if (!release) throw new AppError('not_found', `No release named "${request.release}"`);
    const entries = releaseSplitEntries(db, release.id, request.split ?? null);
    if (entries.length === 0) throw new AppError('not_found', `The release ${release.name}@${release.version} has no instances${request.split ? ` in the split "${request.split}"` : ''}`);
    const items: SourceItem[] = [];
    const frozen = new FrozenRecords(db, FrozenRecords.chunksFor(new Set(entries.map((e) => e.split)).size));
    for (const entry of entries) {
      if (request.limit && items.length >= request.limit) break;
      const record = frozen.record<AwbRecord>(entry);
      if (!record.instance) continue;
      items.push({ key: entry.key, instanceId: entry.instance_id, ambiguityType: entry.ambiguity_type, gold: goldOfRecord(record) });
    }
    source = { kind: 'release', label: `${release.name}@${release.version}${request.split ? `:${request.split}` : ''}`, releaseId: release.id, split: request.split ?? null, datasetId: null, items };
  } else {
    const dataset = findDatasetByName(db, request.dataset!);
    if (!dataset) throw new AppError('not_found', `No dataset named "${request.dataset}"`);
    const rows = datasetInstanceIds(db, dataset.id);
    const chosen = request.limit ? rows.slice(0, request.limit) : rows;
    source = {
      kind: 'dataset',
      label: dataset.name,
      releaseId: null,
      split: null,
      datasetId: dataset.id,
      items: chosen.map((r) => ({ key: `${dataset.name}/${r.source_id}/${r.ambiguity_type}`, instanceId: r.id, ambiguityType: r.ambiguity_type, gold: goldOfInstance(db, r.id) })),
    };
  }
  if (source.items.length === 0) throw new AppError('not_found', `${source.label} has no instance with an active interpretation to evaluate`);
  return source;
}
