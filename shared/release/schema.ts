import type { AwbRecord } from '../awb-format';
import { effectiveAnswerability } from '../domain';

/**
 * The Parquet layout of a release: one row per instance, with the nested parts (interpretations,
 * short answers with aliases and spans, evidence, long answers with citations, passages) as lists
 * of structs. Described once, as data: the Parquet schema, the Hugging Face `features` of the card
 * and the schema table of the README all come from `RELEASE_COLUMNS`.
 */

export type ScalarType = 'string' | 'int32' | 'float64' | 'bool';

export type Field =
  | { name: string; type: ScalarType; optional?: boolean; doc: string }
  | { name: string; list: ScalarType | Field[]; optional?: boolean; doc: string }
  | { name: string; struct: Field[]; optional?: boolean; doc: string };

const span: Field[] = [
  { name: 'passage', type: 'string', optional: true, doc: 'the `id` of a row in `passages`' },
  { name: 'start', type: 'int32', optional: true, doc: 'character offset of the span in that passage' },
  { name: 'end', type: 'int32', optional: true, doc: 'end offset (exclusive)' },
];

const evidence: Field[] = [
  { name: 'passage', type: 'string', doc: 'the `id` of a row in `passages`' },
  { name: 'rank', type: 'int32', doc: '1 = best' },
  { name: 'score', type: 'float64', optional: true, doc: 'retrieval score' },
  { name: 'origin', type: 'string', doc: 'what retrieved it, e.g. "sub-question 1"' },
];

export const RELEASE_COLUMNS: Field[] = [
  { name: 'key', type: 'string', doc: 'stable instance key: dataset / source id / ambiguity type' },
  { name: 'dataset', type: 'string', doc: 'source dataset' },
  { name: 'source_id', type: 'string', doc: "the base question's id in its source" },
  { name: 'question', type: 'string', doc: 'the ambiguous question' },
  { name: 'ambiguity_type', type: 'string', doc: 'semantic, syntactic, constraint or unspecified' },
  { name: 'status', type: 'string', doc: 'building, ready or removed' },
  { name: 'hops', type: 'int32', optional: true, doc: 'reasoning hops of the base question' },
  { name: 'answer', type: 'string', optional: true, doc: "the base question's own answer" },
  { name: 'answerability', type: 'string', optional: true, doc: "answerable, ambiguous or unanswerable (URASys): the instance's label, else ambiguous with two or more interpretations, else its base question's" },
  { name: 'domain', type: 'string', optional: true, doc: 'topic, one of the 15 labels of MARCH Table 7 (slug)' },
  {
    name: 'clarification',
    doc: 'clarification turns (URASys): what to ask before answering, and the clarified question that is the gold',
    list: [
      { name: 'question', type: 'string', doc: 'the question the system should ask' },
      { name: 'user_reply', type: 'string', optional: true, doc: "the user's reply, when known" },
      { name: 'clarified_question', type: 'string', doc: 'the clarified question (gold)' },
      { name: 'interpretation', type: 'int32', optional: true, doc: 'index into `interpretations`: the reading it selects' },
    ],
  },
  { name: 'accepted_round', type: 'int32', optional: true, doc: 'CondAmbigQA construction: the round in which people accepted the item' },
  {
    name: 'interpretations',
    doc: 'one per interpretation, in order',
    list: [
      { name: 'clarified_question', type: 'string', optional: true, doc: 'the question resolved one way' },
      { name: 'condition', type: 'string', optional: true, doc: 'the context under which the answer holds' },
      { name: 'status', type: 'string', doc: 'active or dropped' },
      {
        name: 'short_answer',
        optional: true,
        doc: 'the answer of this interpretation',
        struct: [
          { name: 'text', type: 'string', doc: 'answer text' },
          { name: 'aliases', list: 'string', doc: 'other accepted spellings' },
          ...span,
        ],
      },
      {
        name: 'sub_questions',
        doc: 'the decomposition of this interpretation',
        list: [
          { name: 'question', type: 'string', doc: 'one hop' },
          { name: 'answer', type: 'string', optional: true, doc: 'its answer' },
        ],
      },
      { name: 'evidence', list: evidence, doc: "this interpretation's ranked passages" },
      { name: 'citations', list: 'int32', doc: 'ranks in the instance-level `evidence` it cites' },
    ],
  },
  { name: 'evidence', list: evidence, doc: 'the frozen evidence list of the whole instance' },
  {
    name: 'long_answers',
    doc: 'answers that cover every interpretation',
    list: [
      { name: 'text', type: 'string', doc: 'the long answer' },
      {
        name: 'citations',
        doc: 'spans it cites',
        list: [...span.map((f) => (f.name === 'passage' ? { ...f, optional: false } : f)), { name: 'interpretation', type: 'int32', optional: true, doc: 'index into `interpretations`' }],
      },
    ],
  },
  {
    name: 'passages',
    doc: 'every passage the row refers to, once',
    list: [
      { name: 'id', type: 'string', doc: 'record-local id (`p1`, `p2`, ...)' },
      { name: 'corpus', type: 'string', doc: 'the corpus it belongs to' },
      { name: 'source_id', type: 'string', optional: true, doc: 'its id in the corpus source' },
      { name: 'title', type: 'string', doc: 'title' },
      { name: 'text', type: 'string', doc: 'text' },
    ],
  },
];

// ---- Parquet ------------------------------------------------------------------------------------

/** A Parquet schema element, as hyparquet-writer takes it (plain data: no library types here). */
export interface ParquetSchemaElement {
  name: string;
  type?: 'BOOLEAN' | 'INT32' | 'DOUBLE' | 'BYTE_ARRAY';
  converted_type?: 'UTF8' | 'LIST' | 'INT_32';
  repetition_type?: 'REQUIRED' | 'OPTIONAL' | 'REPEATED';
  num_children?: number;
}

const PHYSICAL: Record<ScalarType, Pick<ParquetSchemaElement, 'type' | 'converted_type'>> = {
  string: { type: 'BYTE_ARRAY', converted_type: 'UTF8' },
  int32: { type: 'INT32' },
  float64: { type: 'DOUBLE' },
  bool: { type: 'BOOLEAN' },
};

function elementsOf(field: Field, repetition: 'REQUIRED' | 'OPTIONAL'): ParquetSchemaElement[] {
  if ('type' in field) return [{ name: field.name, ...PHYSICAL[field.type], repetition_type: repetition }];
  if ('struct' in field) {
    return [
      { name: field.name, repetition_type: repetition, num_children: field.struct.length },
      ...field.struct.flatMap((child) => elementsOf(child, child.optional ? 'OPTIONAL' : 'REQUIRED')),
    ];
  }
  // The standard three-level list: <name> (LIST) → list (repeated) → element.
  const element: Field = typeof field.list === 'string' ? { name: 'element', type: field.list, doc: '' } : { name: 'element', struct: field.list, doc: '' };
  return [
    { name: field.name, repetition_type: repetition, converted_type: 'LIST', num_children: 1 },
    { name: 'list', repetition_type: 'REPEATED', num_children: 1 },
    ...elementsOf(element, 'REQUIRED'),
  ];
}

/** The flattened schema (root first) for a Parquet writer. Lists are never null, only empty. */
export function parquetSchema(columns: readonly Field[] = RELEASE_COLUMNS): ParquetSchemaElement[] {
  return [{ name: 'schema', num_children: columns.length }, ...columns.flatMap((c) => elementsOf(c, c.optional ? 'OPTIONAL' : 'REQUIRED'))];
}

// ---- Hugging Face features ----------------------------------------------------------------------

const HF_DTYPE: Record<ScalarType, string> = { string: 'string', int32: 'int32', float64: 'float64', bool: 'bool' };

type Feature = { name: string; dtype?: string; list?: Feature[] | string; struct?: Feature[] };

function featureOf(field: Field): Feature {
  if ('type' in field) return { name: field.name, dtype: HF_DTYPE[field.type] };
  if ('struct' in field) return { name: field.name, struct: field.struct.map(featureOf) };
  return { name: field.name, list: typeof field.list === 'string' ? HF_DTYPE[field.list] : field.list.map(featureOf) };
}

/** `dataset_info.features` of the card, in the form the Hub's dataset viewer reads. */
export function hfFeatures(columns: readonly Field[] = RELEASE_COLUMNS): Feature[] {
  return columns.map(featureOf);
}

// ---- documentation ------------------------------------------------------------------------------

function typeName(field: Field): string {
  if ('type' in field) return field.type;
  if ('struct' in field) return 'struct';
  return typeof field.list === 'string' ? `list<${field.list}>` : 'list<struct>';
}

/** One line per column, nested columns as dotted paths: `interpretations[].short_answer.text`. */
export function schemaRows(columns: readonly Field[] = RELEASE_COLUMNS, prefix = ''): { path: string; type: string; nullable: boolean; doc: string }[] {
  return columns.flatMap((field) => {
    const path = `${prefix}${field.name}`;
    const own = { path, type: typeName(field), nullable: Boolean(field.optional), doc: field.doc };
    if ('struct' in field) return [own, ...schemaRows(field.struct, `${path}.`)];
    if ('list' in field && typeof field.list !== 'string') return [own, ...schemaRows(field.list, `${path}[].`)];
    return [own];
  });
}

// ---- rows ---------------------------------------------------------------------------------------

export type ReleaseRow = Record<string, unknown>;

/** The stable key of an instance: it survives re-imports and id changes. */
export function instanceKey(record: Pick<AwbRecord, 'dataset' | 'base_question' | 'instance'>): string {
  return keyOf(record.dataset.name, record.base_question.source_id, record.instance?.ambiguity_type ?? 'none');
}

export function keyOf(dataset: string, sourceId: string, type: string): string {
  return `${dataset}/${sourceId}/${type}`;
}

/** One Parquet row from an awb-instance/1 record (provenance stays in the JSONL file). */
/**
 * The same row for the encoder, without copying: nested lists are the record's own objects, whose
 * extra fields (provenance, extra) the Parquet encoder never reads, since it takes the schema's
 * fields by name. A test checks that both give the same Parquet bytes.
 */
export function parquetRowOf(record: AwbRecord): ReleaseRow {
  const instance = record.instance;
  const bq = record.base_question;
  return {
    key: instanceKey(record),
    dataset: record.dataset.name,
    source_id: bq.source_id,
    question: bq.question,
    ambiguity_type: instance?.ambiguity_type ?? 'unspecified',
    status: instance?.status ?? 'ready',
    hops: bq.hops,
    answer: bq.answer,
    answerability: effectiveAnswerability(instance?.answerability, instance?.interpretations.filter((i) => i.status === 'active').length ?? 0, bq.answerability),
    domain: instance?.domain ?? null,
    clarification: (instance?.clarification_turns ?? []).map((t) => ({ question: t.system_question, user_reply: t.user_reply, clarified_question: t.clarified_question, interpretation: t.interpretation })),
    accepted_round: instance?.rounds?.find((r) => r.status === 'accepted')?.round ?? null,
    interpretations: instance?.interpretations ?? [],
    evidence: instance?.evidence ?? [],
    long_answers: instance?.long_answers ?? [],
    passages: record.passages,
  };
}

export function recordToRow(record: AwbRecord): ReleaseRow {
  const instance = record.instance;
  const toEvidence = (e: { passage: string; rank: number; score: number | null; origin: string }) => ({ passage: e.passage, rank: e.rank, score: e.score, origin: e.origin });
  return {
    ...parquetRowOf(record),
    interpretations: (instance?.interpretations ?? []).map((i) => ({
      clarified_question: i.clarified_question,
      condition: i.condition,
      status: i.status,
      short_answer: i.short_answer
        ? { text: i.short_answer.text, aliases: i.short_answer.aliases, passage: i.short_answer.passage, start: i.short_answer.start, end: i.short_answer.end }
        : null,
      sub_questions: i.sub_questions.map((s) => ({ question: s.question, answer: s.answer })),
      evidence: i.evidence.map(toEvidence),
      citations: i.citations,
    })),
    evidence: (instance?.evidence ?? []).map(toEvidence),
    long_answers: (instance?.long_answers ?? []).map((a) => ({
      text: a.text,
      citations: a.citations.map((c) => ({ passage: c.passage, start: c.start, end: c.end, interpretation: c.interpretation })),
    })),
    passages: record.passages.map((p) => ({ id: p.id, corpus: p.corpus, source_id: p.source_id, title: p.title, text: p.text })),
  };
}
