import { beforeAll, describe, expect, it } from 'vitest';
import { pageIdsQuery, readInstancePage } from '../../db/queries/instances';
import { all, explain, sql, type WritableDB } from '../../db/sql';
import { InstanceQuery, type InstanceFilter } from '../../shared/api';
import { memoryDb } from '../helpers/db';
import { randomInstanceQueries } from '../helpers/instance-queries';
import { fillInstances, words } from '../helpers/synthetic';

/**
 * The instance search, against answers computed here from the text each instance was given: which
 * instances match (every word, the last one also as the start of a word), in the table's order by
 * default, and by best match with bm25 as FTS5 documents it (k1 = 1.2, b = 0.75, every column
 * weighted 1, IDF = ln((N - n + 0.5) / (n + 0.5)), floored at 1e-6), written out again here.
 */

interface Row {
  id: number;
  ambiguity_type: string;
  status: string;
  hops: number | null;
  dataset_id: number;
  domain: string | null;
  tokens: string[];
}

const N = 3000;
let db: WritableDB;
let rows: Row[];

beforeAll(() => {
  db = memoryDb();
  const texts = new Map<number, string>();
  fillInstances(db, N, 61, false, (id, question, interpretations) => texts.set(id, `${question}\n${interpretations}`));
  const columns = all<Omit<Row, 'tokens'>>(db, sql`SELECT id, ambiguity_type, status, hops, dataset_id, domain FROM instances ORDER BY id`);
  rows = columns.map((r) => ({ ...r, tokens: tokens(texts.get(r.id)!) }));
});

/** The words of a text as the index's tokenizer reads this (ASCII) text: runs of letters and digits, lower case. */
const tokens = (text: string) => (text.toLowerCase().match(/[a-z0-9]+/g) ?? []);

/** The search's phrases: each word whole, the last one also as a prefix. */
function phrases(search: string): ((token: string) => boolean)[] {
  const terms = tokens(search);
  return terms.map((term, i) => (i === terms.length - 1 ? (t: string) => t.startsWith(term) : (t: string) => t === term));
}

function passesFilter(row: Row, filter: InstanceFilter): boolean {
  const hops = row.hops ?? 0;
  return (
    (!filter.datasets.length || filter.datasets.includes(row.dataset_id)) &&
    (!filter.types.length || (filter.types as string[]).includes(row.ambiguity_type)) &&
    (!filter.statuses.length || (filter.statuses as string[]).includes(row.status)) &&
    (!filter.hops.length || filter.hops.includes(hops)) &&
    (!filter.domains.length || (filter.domains as string[]).includes(row.domain ?? 'none'))
  );
}

const matches = (row: Row, search: ReturnType<typeof phrases>) => search.every((phrase) => row.tokens.some(phrase));

/** bm25 of each matching row (FTS5's sign: lower is better), over every row of the table. */
function bm25(search: ReturnType<typeof phrases>): Map<number, number> {
  const k1 = 1.2;
  const b = 0.75;
  const avgdl = rows.reduce((n, r) => n + r.tokens.length, 0) / rows.length;
  const idf = search.map((phrase) => {
    const hits = rows.filter((r) => r.tokens.some(phrase)).length;
    const value = Math.log((rows.length - hits + 0.5) / (hits + 0.5));
    return value <= 0 ? 1e-6 : value;
  });
  const scores = new Map<number, number>();
  for (const row of rows) {
    if (!matches(row, search)) continue;
    const score = search.reduce((sum, phrase, i) => {
      const frequency = row.tokens.filter(phrase).length;
      return sum + (idf[i]! * (frequency * (k1 + 1))) / (frequency + k1 * (1 - b + (b * row.tokens.length) / avgdl));
    }, 0);
    scores.set(row.id, -score);
  }
  return scores;
}

/** The page computed here: the matching rows in id order or by score (ties by id), then the page. */
function expectedPage(query: InstanceQuery): number[] {
  const search = phrases(query.search);
  const found = rows.filter((r) => passesFilter(r, query) && matches(r, search)).map((r) => r.id);
  const direction = query.direction === 'desc' ? -1 : 1;
  if (query.sort === 'relevance') {
    const scores = bm25(search);
    // Scores equal to within rounding (the same counts give the same score) fall back to the id.
    found.sort((x, y) => {
      const difference = scores.get(x)! - scores.get(y)!;
      return Math.abs(difference) > 1e-9 ? direction * difference : x - y;
    });
  } else found.sort((x, y) => direction * (x - y));
  return found.slice(query.offset, query.offset + query.limit);
}

/** Searches as someone types them: a common word, a rare one, a word and a prefix, a lone prefix, a miss. */
function searchText(random: () => number): string {
  const r = random();
  const word = words(random, 1);
  if (r < 0.2) return word;
  if (r < 0.55) return `${word} ${words(random, 1).slice(0, 2 + Math.floor(random() * 4))}`;
  if (r < 0.75) return words(random, 1).slice(0, 1 + Math.floor(random() * 4));
  if (r < 0.9) return `what ${word}`;
  return `${word} zzqx`;
}

const FILTERS: Partial<InstanceFilter>[] = [{}, {}, { types: ['semantic'] }, { statuses: ['ready', 'removed'] }, { datasets: [2] }, { hops: [0, 3] }];

describe('the instance search', () => {
  it('is in the table\'s order unless another sort is asked for, through the one operation\'s input', () => {
    expect(InstanceQuery.parse({ search: 'what' }).sort).toBe('id');
    expect(InstanceQuery.parse({ search: 'what' }).direction).toBe('asc');
  });

  it('shows the matching rows in the table\'s order, either direction, under any filter, at any offset', () => {
    const queries = randomInstanceQueries(67, 300, {
      filters: FILTERS,
      search: searchText,
      sorts: ['id'],
      offset: (random) => (random() < 0.5 ? 0 : Math.floor(random() * 400)),
      maxLimit: 120,
    });
    let nonEmpty = 0;
    for (const q of queries) {
      const page = readInstancePage(db, q);
      expect(page.plan).toBe('search');
      const expected = expectedPage(q);
      expect(page.rows.map((r) => r.id), JSON.stringify(q)).toEqual(expected);
      if (expected.length) nonEmpty++;
    }
    expect(nonEmpty).toBeGreaterThan(100);
  });

  it('orders by best match when asked, as bm25 computed here ranks them, ties by id', () => {
    const queries = randomInstanceQueries(71, 120, {
      filters: FILTERS,
      search: searchText,
      sorts: ['relevance'],
      offset: (random) => (random() < 0.6 ? 0 : Math.floor(random() * 200)),
      maxLimit: 150,
    });
    let ranked = 0;
    let reordered = 0;
    for (const q of queries) {
      const expected = expectedPage(q);
      expect(readInstancePage(db, q).rows.map((r) => r.id), JSON.stringify(q)).toEqual(expected);
      ranked += expected.length;
      // Pages whose order is not the table's: the ranking, not the id, decided them.
      if (expected.join() !== expectedPage({ ...q, sort: 'id' }).join()) reordered++;
    }
    expect(ranked).toBeGreaterThan(2000);
    expect(reordered).toBeGreaterThan(40);
  });

  it('walks the index in rowid order and stops at the page: no sort step, the index outermost', () => {
    for (const direction of ['asc', 'desc'] as const) {
      for (const filter of [{}, { statuses: ['ready' as const], types: ['semantic' as const] }]) {
        const plan = explain(db, pageIdsQuery(InstanceQuery.parse({ ...filter, search: 'what ka', direction }), 'search'));
        expect(plan[0], plan.join(' | ')).toMatch(/SCAN f VIRTUAL TABLE/);
        expect(plan.join(' | ')).toMatch(/SEARCH i USING INTEGER PRIMARY KEY/);
        expect(plan.join(' | ')).not.toMatch(/TEMP B-TREE/);
      }
    }
    // Best match has to score every match first, and says so.
    expect(explain(db, pageIdsQuery(InstanceQuery.parse({ search: 'what ka', sort: 'relevance' }), 'search')).join(' | ')).toMatch(/TEMP B-TREE FOR ORDER BY/);
  });
});
