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

export const IMPORT_FORMATS = ['musique', 'asqa', 'ambignq', 'condambigqa', 'awb'] as const;

/** How each import format is named to people (the job line, reports). */
export const IMPORT_FORMAT_NAMES: Record<(typeof IMPORT_FORMATS)[number], string> = {
  musique: 'MuSiQue',
  asqa: 'ASQA',
  ambignq: 'AmbigNQ',
  condambigqa: 'CondAmbigQA',
  awb: 'Workbench JSONL',
};
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

/** `Entity >> relation` (with `#1`, `#2` for earlier answers) is MuSiQue's relation style. */
export function decompositionStyle(question: string): DecompositionStyle {
  return question.includes('>>') ? 'relation' : 'natural';
}
