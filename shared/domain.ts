/**
 * The domain's fixed vocabularies, named as in GLOSSARY.md. Shared by the database checks,
 * the API schemas and the UI.
 */

export const AMBIGUITY_TYPES = ['semantic', 'syntactic', 'constraint', 'unspecified'] as const;
export type AmbiguityType = (typeof AMBIGUITY_TYPES)[number];

/** One-line definitions shown beside the type tag in the detail view (our own wording). */
export const AMBIGUITY_TYPE_DEFINITIONS: Record<AmbiguityType, string> = {
  semantic: 'A name or phrase can point to several entities or senses; each interpretation takes one of them.',
  syntactic: 'The sentence can be parsed in more than one way; each parse is resolved into its own question.',
  constraint: 'The question is too specific for the evidence; it is generalised by relaxing a constraint.',
  unspecified: 'Imported without an ambiguity type; its interpretations come from the source dataset.',
};

/**
 * building: the pipeline is still working on it; ready: complete (imported, or passed every
 * stage); removed: a stage or filter took it out, and `removed_reason` says why.
 */
export const INSTANCE_STATUSES = ['building', 'ready', 'removed'] as const;
export type InstanceStatus = (typeof INSTANCE_STATUSES)[number];

export const PIPELINE_STAGES = [
  'detect',
  'clarify',
  'decompose',
  'retrieve',
  'answer',
  'merge',
  'shorten',
  'collide',
  'filter',
] as const;
export type PipelineStage = (typeof PIPELINE_STAGES)[number];

/** The stage an instance reached: a pipeline stage, or `imported` for finished imported data. */
export const INSTANCE_STAGES = ['imported', ...PIPELINE_STAGES] as const;
export type InstanceStage = (typeof INSTANCE_STAGES)[number];

export const INTERPRETATION_STATUSES = ['active', 'dropped'] as const;
export type InterpretationStatus = (typeof INTERPRETATION_STATUSES)[number];

/** Where a generated field came from. */
export const PROVENANCE_SOURCES = ['dataset', 'llm', 'human', 'rule'] as const;
export type ProvenanceSource = (typeof PROVENANCE_SOURCES)[number];

export const DECOMPOSITION_STYLES = ['natural', 'relation'] as const;
export type DecompositionStyle = (typeof DECOMPOSITION_STYLES)[number];

/** A filter model's vote; `not_needed`: not asked, because the votes already given decided the outcome. */
export const FILTER_VERDICTS = ['aligned', 'misaligned', 'not_needed'] as const;
export type FilterVerdict = (typeof FILTER_VERDICTS)[number];

/** A detector's vote on one ambiguity type; `not_needed` as for filter votes. */
export const DETECTION_VERDICTS = ['yes', 'no', 'not_needed'] as const;
export type DetectionVerdict = (typeof DETECTION_VERDICTS)[number];

export const IMPORT_FORMATS = ['musique', 'asqa', 'ambignq', 'condambigqa', 'squad2', 'awb'] as const;

/** How each import format is named to people (the job line, reports). */
export const IMPORT_FORMAT_NAMES: Record<(typeof IMPORT_FORMATS)[number], string> = {
  musique: 'MuSiQue',
  asqa: 'ASQA',
  ambignq: 'AmbigNQ',
  condambigqa: 'CondAmbigQA',
  squad2: 'SQuAD 2.0',
  awb: 'Workbench JSONL',
};
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

/** `Entity >> relation` (with `#1`, `#2` for earlier answers) is MuSiQue's relation style. */
export function decompositionStyle(question: string): DecompositionStyle {
  return question.includes('>>') ? 'relation' : 'natural';
}

/**
 * A base question's (or an instance's) answerability, after URASys: answerable (one clear
 * answer in the data), ambiguous (several readings; ask before answering), unanswerable (the
 * data does not hold the answer; say so).
 */
export const ANSWERABILITY_LABELS = ['answerable', 'ambiguous', 'unanswerable'] as const;
export type Answerability = (typeof ANSWERABILITY_LABELS)[number];

/**
 * The topic labels of MARCH's domain table (paper 000, Appendix B, Table 7), in its order: the
 * slug is stored, the label shown. `unknown` is a label a tagger may choose, not a missing value.
 */
export const DOMAINS = [
  { slug: 'science-technology', label: 'Science & Technology' },
  { slug: 'math-logic', label: 'Math & Logic' },
  { slug: 'history', label: 'History' },
  { slug: 'geography-places', label: 'Geography & Places' },
  { slug: 'politics-government', label: 'Politics & Government' },
  { slug: 'business-economics', label: 'Business & Economics' },
  { slug: 'society-culture', label: 'Society & Culture' },
  { slug: 'arts-literature', label: 'Arts & Literature' },
  { slug: 'entertainment', label: 'Entertainment (Film/TV/Games)' },
  { slug: 'music', label: 'Music' },
  { slug: 'sports', label: 'Sports' },
  { slug: 'religion-philosophy', label: 'Religion & Philosophy' },
  { slug: 'medicine-health', label: 'Medicine & Health' },
  { slug: 'nature-environment', label: 'Nature & Environment' },
  { slug: 'unknown', label: 'UNKNOWN' },
] as const;
export const DOMAIN_SLUGS = DOMAINS.map((d) => d.slug) as [Domain, ...Domain[]];
export type Domain = (typeof DOMAINS)[number]['slug'];

export function domainLabel(slug: string): string {
  return DOMAINS.find((d) => d.slug === slug)?.label ?? slug;
}

/** How an instance is built: by the MARCH pipeline (null) or in CondAmbigQA-style rounds. */
export const CONSTRUCTION_MODES = ['condambigqa'] as const;
export type ConstructionMode = (typeof CONSTRUCTION_MODES)[number];

/**
 * Where an item stands in one round: being drafted, drafted (waiting for review), in review,
 * then accepted or rejected (with feedback).
 */
export const ROUND_STATUSES = ['drafting', 'drafted', 'in_review', 'accepted', 'rejected'] as const;
export type RoundStatus = (typeof ROUND_STATUSES)[number];

/** What the labelling stage labels: a base question's answerability, or its topic. */
export const LABEL_KINDS = ['answerability', 'domain'] as const;
export type LabelKind = (typeof LABEL_KINDS)[number];

/**
 * The answerability an instance carries: its own label, else "ambiguous" when it has two or more
 * active interpretations (it is ambiguous by construction), else its base question's label.
 */
export function effectiveAnswerability(own: Answerability | null | undefined, activeInterpretations: number, base: Answerability | null | undefined): Answerability | null {
  return own ?? (activeInterpretations >= 2 ? 'ambiguous' : (base ?? null));
}
