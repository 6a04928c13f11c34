import { fnv1a } from '../fnv';

/**
 * What an evaluation run works on and produces, as plain data: the gold side of one item (frozen
 * from a release, or read from a dataset when the run starts) and a method's output.
 */

export interface GoldInterpretation {
  /** The clarified question (null where the dataset gives only a condition). */
  question: string | null;
  condition: string | null;
  /** The short answer first, then its aliases. */
  answers: string[];
  /** Keys of the passages that support it (`corpus/source id`, or the passage id as text). */
  evidence: string[];
  /** Keys of the fragments (the frozen evidence list) it cites, as CondAmbigQA gives them. */
  cited: string[];
}

/** One entry of the instance's frozen evidence list (CondAmbigQA's fragments), numbered from 1. */
export interface Fragment {
  rank: number;
  title: string;
  text: string;
  key: string;
}

export interface EvalGold {
  question: string;
  ambiguityType: string;
  interpretations: GoldInterpretation[];
  longAnswers: string[];
  fragments: Fragment[];
}

/** A passage a method retrieved, as stored with the item (text kept so a trace stays readable after the corpus changes). */
export interface RetrievedPassage {
  id: number;
  key: string;
  title: string;
  text: string;
  rank: number;
  score: number;
}

export interface MethodInterpretation {
  question: string;
  condition: string | null;
  answer: string | null;
  /** Passage numbers in the prompt the answer cited, resolved to passage keys. */
  citations: string[];
  retrieved: RetrievedPassage[];
  /** CLARION: the chain of hops behind the answer (entity per hop, the passage keys supporting it). */
  hops?: { hop: number; entity: string; passages: string[] }[];
  /**
   * CLARION's hop-consistency verdict: passed, recovered after a failure, still failing
   * (unverified: not safely answerable) or blocked on a missing entity (needs the user).
   */
  verdict?: 'pass' | 'recovered' | 'unverified' | 'needs-user';
  /** DIVA: how well the retrieved passages serve this interpretation. */
  evidence?: 'useful' | 'partially_useful' | 'useless';
}

export interface MethodOutput {
  longAnswer: string;
  /** The short answers the method committed to; null when it gives none of its own (the standard baselines answer in prose). */
  shortAnswers: string[] | null;
  /** Passage keys the long answer cites. */
  citations: string[];
  interpretations: MethodInterpretation[];
  /** Passages retrieved for the question as a whole (methods that search once). */
  retrieved: RetrievedPassage[];
}

export const STEP_KINDS = ['plan', 'thought', 'action', 'observation', 'retrieve', 'generate', 'reader', 'judge', 'note'] as const;
export type StepKind = (typeof STEP_KINDS)[number];

/** One step of an item's trace; `callId` points into the call log (prompt, raw output, tokens, latency, cost). */
export interface TraceStep {
  position: number;
  kind: StepKind;
  label: string;
  content: unknown;
  callId: number | null;
  cached: boolean;
  latencyMs: number | null;
}

/** FNV-1a (32 bits, as hex) of a string: a short, stable fingerprint. */
function fingerprint(text: string): string {
  return fnv1a(text).toString(16).padStart(8, '0');
}

/**
 * A passage's key, the same whether the passage comes from the corpus (a search hit), a
 * dataset's instance or a release's frozen record: its corpus and source id when it has one,
 * else its corpus and a fingerprint of its title and text (database ids differ between
 * databases and record ids are local to the record).
 */
export function passageKey(p: { corpus: string; sourceId: string | null; title: string; text: string }): string {
  return p.sourceId ? `${p.corpus}/${p.sourceId}` : `${p.corpus}#${fingerprint(`${p.title}\n${p.text}`)}`;
}
