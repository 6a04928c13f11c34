import { countTokens, foldForMatching } from './text';

/**
 * Rules of the construction pipeline that need no database and no network: which model an
 * endpoint's name stands for, how `#1` placeholders in sub-questions are filled, which
 * interpretations a collision removes, whether a shortened answer may be used, and the stable
 * order in which `--limit` picks base questions. Pure, so they are tested on their own.
 */

// ---- model identity ------------------------------------------------------------------------------

/** OpenRouter's variant suffixes: the same weights served another way (`:free`, `:nitro`, ...). */
const ROUTING_VARIANTS = new Set(['free', 'nitro', 'floor', 'online', 'extended', 'thinking', 'beta']);

/**
 * The model behind a name, as endpoints spell it differently: no provider prefix
 * (`openai/gpt-4.1` and `gpt-4.1`), no dated snapshot (`gpt-4.1-2025-04-14`, `claude-sonnet-4-20250514`),
 * no routing variant (`:free`), lower case. A size tag such as Ollama's `llama3:70b` is kept: it is
 * another model.
 */
export function modelIdentity(name: string): string {
  let id = name.trim().toLowerCase();
  id = id.slice(id.lastIndexOf('/') + 1);
  const colon = id.lastIndexOf(':');
  if (colon !== -1 && ROUTING_VARIANTS.has(id.slice(colon + 1))) id = id.slice(0, colon);
  id = id.replace(/-(\d{4}-\d{2}-\d{2}|\d{8})$/, '');
  return id;
}

// ---- sub-questions ----------------------------------------------------------------------------------

const PLACEHOLDER = /\[?#(\d+)\]?/g;

/** How an earlier sub-question reads as a noun phrase, when its answer is not known yet. */
function describe(question: string): string {
  return `the answer to "${question.trim().replace(/[?.!\s]+$/u, '')}"`;
}

/**
 * Sub-questions as retrieval can use them: every `#n` (a reference to the answer of step n)
 * replaced by that answer where it is known, else by a description of step n, so no query ever
 * carries a bare placeholder. References to missing or later steps are described as "an earlier
 * answer". Text without placeholders is returned unchanged.
 */
export function fillBridges(subQuestions: readonly string[], answers: readonly (string | null | undefined)[] = []): string[] {
  const filled: string[] = [];
  subQuestions.forEach((question, index) => {
    filled.push(
      question.replace(PLACEHOLDER, (_whole, n: string) => {
        const step = Number(n) - 1;
        if (step < 0 || step >= index) return 'an earlier answer';
        const known = answers[step]?.trim();
        return known ? known : describe(filled[step]!);
      }),
    );
  });
  return filled;
}

// ---- collisions -----------------------------------------------------------------------------------

export interface Collision {
  /** The interpretation removed (its position), and the earlier one it repeats. */
  position: number;
  sameAs: number;
  /** The normalised short answer both share. */
  answer: string;
}

/**
 * Interpretations whose normalised short answers repeat an earlier one's: the later of each
 * pair is removed, and `distinct` counts the answers that remain.
 */
export function planCollisions(interpretations: readonly { position: number; answer: string | null }[]): { collisions: Collision[]; distinct: number } {
  const first = new Map<string, number>();
  const collisions: Collision[] = [];
  for (const { position, answer } of interpretations) {
    const key = foldForMatching(answer ?? '');
    const earlier = first.get(key);
    if (earlier === undefined) first.set(key, position);
    else collisions.push({ position, sameAs: earlier, answer: key });
  }
  return { collisions, distinct: first.size };
}

// ---- shortening ------------------------------------------------------------------------------------

/** Why a shortened answer cannot be used (null: it can): too long still, or longer than before. */
export function shorteningProblem(shortened: string, previous: string, maxTokens: number, foundInPassage: boolean): string | null {
  const tokens = countTokens(shortened);
  if (!foundInPassage) return `"${shortened.slice(0, 80)}" is not a span of the answer's passage`;
  if (tokens > maxTokens) return `"${shortened.slice(0, 80)}" has ${tokens} tokens, more than ${maxTokens}`;
  if (tokens >= countTokens(previous)) return `"${shortened.slice(0, 80)}" is not shorter than the answer it replaces`;
  return null;
}

// ---- stable subsets ------------------------------------------------------------------------------------

/** FNV-1a, 32 bits: a small, well-known hash that gives the same value on every machine. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

/**
 * The key `--limit` orders base questions by: a hash of the dataset's name and the record's own
 * id, so the same N questions (a spread over the dataset rather than its first records) are
 * picked in the same order on every run and every machine, whatever order they were imported in.
 */
export function subsetKey(dataset: string, sourceId: string): string {
  return `${fnv1a(`${dataset}\u0000${sourceId}`).toString(16).padStart(8, '0')}\u0000${dataset}\u0000${sourceId}`;
}

/** The first `limit` items by their subset key. */
export function stableSubset<T extends { dataset: string; sourceId: string }>(items: readonly T[], limit: number): T[] {
  return items
    .map((item) => ({ item, key: subsetKey(item.dataset, item.sourceId) }))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .slice(0, limit)
    .map((entry) => entry.item);
}
