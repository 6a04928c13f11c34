import type { WritableDB } from '../../db/sql';
import { seededRandom } from '../../shared/statistics';
import { AMBIGUITY_TYPES, INSTANCE_STATUSES } from '../../shared/domain';

/**
 * Synthetic data shaped like the real thing, for tests and the benchmark: deterministic (seeded)
 * so that runs compare. Words come from a fixed vocabulary with a Zipf-like skew, as in text.
 */

/** Seeded randomness: the app's own generator (mulberry32). */
export const rng = seededRandom;

/** The `rank`-th word spelled from a syllable list: a fixed, pronounceable, collision-free vocabulary. */
export function syllableWord(rank: number, syllables: readonly string[]): string {
  let word = '';
  let n = rank;
  do {
    word += syllables[n % syllables.length];
    n = Math.floor(n / syllables.length);
  } while (n > 0);
  return word;
}

const SYLLABLES = ['ka', 'lo', 'mi', 'ra', 'ten', 'dor', 'vel', 'an', 'is', 'pu', 'shi', 'gor', 'el', 'ny', 'tra', 'bo', 'qui', 'zar', 'fen', 'ul'];
const VOCABULARY = Array.from({ length: 20_000 }, (_, i) => syllableWord(i, SYLLABLES));

export function words(random: () => number, count: number): string {
  const out: string[] = [];
  for (let i = 0; i < count; i++) out.push(VOCABULARY[Math.floor(VOCABULARY.length * random() ** 3)]!);
  return out.join(' ');
}

export interface SyntheticMusique {
  id: string;
  paragraphs: { idx: number; title: string; paragraph_text: string; is_supporting: boolean }[];
  question: string;
  question_decomposition: { id: number; question: string; answer: string; paragraph_support_idx: number }[];
  answer: string;
  answer_aliases: string[];
  answerable: boolean;
}

/**
 * A MuSiQue-shaped record: 20 paragraphs of about 100 words, 2-4 hops. `sharedPool` paragraphs
 * recur across records, as distractors do in MuSiQue, so deduplication has work to do.
 */
export function musiqueRecord(i: number, random: () => number, sharedPool = 2000): SyntheticMusique {
  const hops = 2 + Math.floor(random() * 3);
  const paragraphs = Array.from({ length: 20 }, (_, idx) => {
    const shared = random() < 0.05;
    const seed = shared ? Math.floor(random() * sharedPool) : i * 20 + idx + sharedPool;
    const local = rng(seed + 1);
    return {
      idx,
      title: `${words(local, 2)} ${seed}`,
      paragraph_text: `${words(local, 95)}.`,
      is_supporting: idx < hops,
    };
  });
  return {
    id: `${hops}hop__${i}_${i + 1}`,
    paragraphs,
    question: `What ${words(random, 10)}?`,
    question_decomposition: Array.from({ length: hops }, (_, h) => ({
      id: i * 10 + h,
      question: h === 0 ? `${words(random, 2)} >> ${words(random, 1)}` : `Who ${words(random, 6)} #${h}?`,
      answer: words(random, 2),
      paragraph_support_idx: h,
    })),
    answer: words(random, 2),
    answer_aliases: [words(random, 2)],
    answerable: true,
  };
}

/**
 * Fills the instance table directly with `count` rows over `count / 2` base questions (a
 * semantic and a constraint instance each, plus others by the same mix), for listing tests and
 * the page-query benchmark. Real writes go through the importers; this is only for volume.
 * `searchOnly` writes the search rows again, alone and the same as the full fill with the same
 * seed: for a database whose search table a migration remade from the rows (which hold no
 * interpretations to give it). `searched` hears each search row's text as it is written (the
 * search table keeps no text), for tests that compute a search's answer themselves.
 */
export function fillInstances(
  db: WritableDB,
  count: number,
  seed = 7,
  searchOnly = false,
  searched?: (id: number, question: string, interpretations: string) => void,
): void {
  const random = rng(seed);
  if (searchOnly) db.exec(`INSERT INTO instances_fts (instances_fts) VALUES ('delete-all')`);
  else db.exec(`INSERT OR IGNORE INTO datasets (id, name, source_format) VALUES (1, 'synthetic A', 'musique'), (2, 'synthetic B', 'asqa')`);
  const skip = { run: () => undefined };
  const insertQuestion = searchOnly ? skip : db.prepare('INSERT INTO base_questions (id, dataset_id, source_id, question, hops) VALUES (?, ?, ?, ?, ?)');
  const insertInstance = searchOnly ? skip : db.prepare(
    `INSERT INTO instances (id, base_question_id, dataset_id, ambiguity_type, status, stage, removed_stage, removed_reason, hops, interpretation_count, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const insertSearch = db.prepare('INSERT INTO instances_fts (rowid, question, interpretations) VALUES (?, ?, ?)');
  const types = AMBIGUITY_TYPES.slice(0, 3);
  db.transaction(() => {
    let id = 1;
    for (let q = 1; id <= count; q++) {
      const dataset = random() < 0.7 ? 1 : 2;
      const hops = dataset === 1 ? 2 + Math.floor(random() * 3) : null;
      const question = `What ${words(random, 9)}?`;
      insertQuestion.run(q, dataset, `bq-${q}`, question, hops);
      for (const type of types) {
        if (id > count || (type === 'syntactic' && random() < 0.7)) continue;
        const status = INSTANCE_STATUSES[Math.floor(random() * 3)]!;
        const removed = status === 'removed';
        insertInstance.run(
          id, q, dataset, type, status, removed ? 'filter' : 'imported',
          removed ? 'filter' : null, removed ? 'a filter model disagreed' : null,
          hops, 2 + Math.floor(random() * 3), new Date(1_700_000_000_000 + id * 1000).toISOString(),
        );
        const interpretations = words(random, 12);
        insertSearch.run(id, question, interpretations);
        searched?.(id, question, interpretations);
        id++;
      }
    }
  })();
  db.exec('ANALYZE');
}
