import type { z } from 'zod';
import type { AwbDataset, AwbProvenance, AwbRecord } from '../../../../shared/awb-format';
import type { CitationLinkReport } from '../../../../shared/api';
import type { ImportFormat } from '../../../../shared/domain';
import type { RawRecord } from '../json-scanner';

export interface ConvertContext {
  dataset: AwbDataset;
  /** Corpus that the record's passages go to (by default the dataset's name). */
  corpus: string;
  raw: RawRecord;
  /** The file's citation links, for formats whose records cite a frozen fragment list (CondAmbigQA). */
  citationLinks: CitationLinkReport;
}

export function emptyCitationLinks(): CitationLinkReport {
  return { byNumber: 0, byTitleText: 0, unmatched: 0, numberTextDisagree: 0, examples: [] };
}

/** A source format: how to validate one record and how to turn it into awb-instance/1. */
export interface SourceFormat<Record = unknown> {
  readonly name: ImportFormat;
  readonly label: string;
  readonly schema: z.ZodType<Record>;
  /** Split names of a `{"train": {id: record}}` file, if the format comes that way. */
  readonly splits?: readonly string[];
  /** The key of the record array in a `{"version": ..., "<wrapper>": [record, ...]}` file (SQuAD's `data`). */
  readonly wrapper?: string;
  /** For a source record that holds many questions (a SQuAD article): their ids, each unique in the file. */
  subIds?(record: Record): string[];
  readonly defaults: Pick<AwbDataset, 'description' | 'licence' | 'attribution' | 'url'>;
  /** The id used to spot the same record twice in one file. */
  sourceId(record: Record, raw: RawRecord): string;
  /** The record in awb-instance/1; a record holding several questions gives one record each. */
  toAwb(record: Record, context: ConvertContext): AwbRecord | AwbRecord[];
}

export function datasetProvenance(context: ConvertContext): AwbProvenance {
  return { source: 'dataset', detail: context.dataset.name, model: null, prompt_version: null, call: null };
}

/** The keys of `value` that a schema does not name, kept under `extra` so nothing is lost. */
export function extraKeys(value: object, known: readonly string[]): Record<string, unknown> {
  const extra: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) if (!known.includes(key)) extra[key] = v;
  return extra;
}

/** Assigns record-local passage ids, deduplicating identical (title, text) pairs. */
export class PassageList {
  readonly passages: AwbRecord['passages'] = [];
  private readonly byContent = new Map<string, string>();

  constructor(private readonly corpus: string) {}

  add(title: string, text: string, sourceId: string | null = null): string {
    const key = `${title}\u0000${text}`;
    const existing = this.byContent.get(key);
    if (existing) return existing;
    const id = `p${this.passages.length + 1}`;
    this.passages.push({ id, corpus: this.corpus, source_id: sourceId, title, text });
    this.byContent.set(key, id);
    return id;
  }
}
