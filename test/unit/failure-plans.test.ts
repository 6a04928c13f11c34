import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../db/connection';
import { addItemTag, currentTagKeys } from '../../db/queries/eval-item-tags';
import { insertEvalRun } from '../../db/queries/eval-runs';
import {
  countFailuresQuery,
  FAILURE_SORTS,
  failurePageIds,
  failurePageQuery,
  valuelessPageQuery,
  type FailureFilter,
  type FailureMetric,
  type FailurePlan,
  type FailureSort,
} from '../../db/queries/eval-items-failures';
import { findFailureTag } from '../../db/queries/failure-tags';
import { explain, type WritableDB } from '../../db/sql';
import { rng } from '../helpers/synthetic';

/**
 * Query plans of the failure table (db/queries/eval-items-failures.ts) on the covering indexes of
 * migrations 0010 and 0012, as SQLite plans them after ANALYZE (the app runs `PRAGMA optimize`
 * after large writes). A walk of a sort index must read the index alone (COVERING INDEX, so no
 * row is read) in the sort's order (no temp B-tree); filter-then-sort must read only a covering
 * index's entries of the filtered range, sorting just the matching items.
 */

let db: WritableDB;
let runA: number;
let runB: number;

const TYPES = ['semantic', 'syntactic', 'constraint', 'unspecified'];

function fillRun(count: number, seed: number): number {
  const runId = insertEvalRun(db, {
    method: 'naive_rag', model: `plans-${seed}`, endpoint: {}, sourceKind: 'dataset', source: 'plans', releaseId: null, split: null,
    datasetId: null, corpus: null, retrievalMode: null, k: null, options: {}, promptVersions: {},
  });
  const random = rng(seed);
  const insert = db.prepare(
    `INSERT INTO eval_items (run_id, position, key, ambiguity_type, question, gold, status, long_answer, str_em, disambig_f1, rouge_l, judge_mean,
                             collapsed, retrieval_miss, latency_ms, cost_usd, error)
     VALUES (?, ?, ?, ?, ?, '{}', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  db.transaction(() => {
    for (let i = 0; i < count; i++) {
      const failed = random() < 0.05;
      const value = () => (failed ? null : Math.floor(random() * 21) / 20);
      insert.run(runId, i, `key-${i}`, TYPES[i % 4]!, `Question ${i}?`, failed ? 'failed' : 'done', failed ? null : `Answer ${i}.`,
        value(), value(), value(), failed ? null : Math.floor(random() * 21) / 4, failed ? null : Number(random() < 0.3), failed ? null : Number(random() < 0.2),
        failed ? null : 200 + random() * 3000, failed ? 0 : random() / 100, failed ? 'planned failure' : null);
    }
  })();
  db.prepare('UPDATE eval_runs SET total = ? WHERE id = ?').run(count, runId);
  return runId;
}

beforeAll(() => {
  db = openDatabase(':memory:');
  runA = fillRun(4000, 3);
  runB = fillRun(4000, 5);
  const tag = findFailureTag(db, 'factual-error')!;
  for (let id = 1; id <= 4000; id += 13) addItemTag(db, id, tag.id, 'person', 'plans', '');
  db.exec('ANALYZE');
});

afterAll(() => db.close());

const explained = (query: Parameters<typeof explain>[1]) => explain(db, query).join(' | ');
const plan = (sort: FailureSort, filter: FailureFilter, how: FailurePlan, direction: 'asc' | 'desc' = 'asc') =>
  explained(failurePageQuery(runA, filter, sort, direction, 50, 0, how));

const METRICS = FAILURE_SORTS.filter((s): s is FailureMetric => s !== 'position');
/** The index each sort walks (migration 0012), as the module's own table has it: written out here so that a change there shows. */
const SORT_INDEX: Record<FailureSort, string> = {
  position: 'failures_by_position', str_em: 'failures_by_str_em', disambig_f1: 'failures_by_disambig', rouge_l: 'failures_by_rouge',
  judge_mean: 'failures_by_judge', latency_ms: 'failures_by_latency', cost_usd: 'failures_by_cost',
};
const walks = (index: string, range = '') => new RegExp(`^SEARCH a USING COVERING INDEX ${index} \\(run_id=\\?${range}`);

describe('a page walks the sort\'s covering index, in order', () => {
  it('for every sort and direction, with no sort step', () => {
    for (const sort of FAILURE_SORTS) {
      for (const direction of ['asc', 'desc'] as const) {
        const p = plan(sort, {}, 'walk-index', direction);
        expect(p, `${sort} ${direction}`).toMatch(walks(SORT_INDEX[sort]));
        expect(p, `${sort} ${direction}`).not.toMatch(/TEMP B-TREE|SCAN/);
      }
    }
  });

  it('within a type, the per-type index of the sort (migration 0012)', () => {
    expect(plan('position', { type: 'semantic' }, 'walk-index')).toMatch(walks('failures_by_type', ' AND ambiguity_type=\\?\\)'));
    for (const metric of METRICS) {
      const p = plan(metric, { type: 'semantic' }, 'walk-index', 'desc');
      expect(p, metric).toMatch(walks(`${SORT_INDEX[metric]}_in_type`, ' AND ambiguity_type=\\?'));
      expect(p, metric).not.toMatch(/TEMP B-TREE|SCAN/);
    }
  });

  it('testing status, flags and another metric\'s threshold on the index entries, never on the rows', () => {
    const filter: FailureFilter = { status: 'done', collapsed: true, retrievalMiss: false, thresholds: [{ metric: 'str_em', below: 0.5 }, { metric: 'rouge_l', atLeast: 0.2 }] };
    const p = plan('rouge_l', filter, 'walk-index', 'desc');
    expect(p).toBe('SEARCH a USING COVERING INDEX failures_by_rouge (run_id=? AND rouge_l>?)');
  });

  it('continuing past the items with a value on the same index', () => {
    expect(explained(valuelessPageQuery(runA, {}, 'rouge_l', 'asc', 50, 0))).toBe('SEARCH a USING COVERING INDEX failures_by_rouge (run_id=? AND rouge_l=?)');
    expect(explained(valuelessPageQuery(runA, { type: 'syntactic' }, 'judge_mean', 'desc', 50, 0))).toBe(
      'SEARCH a USING COVERING INDEX failures_by_judge_in_type (run_id=? AND ambiguity_type=? AND judge_mean=?)',
    );
  });

  it('looking a tag up in the current-tags index, and the other run\'s item up by its key', () => {
    const tag = findFailureTag(db, 'factual-error')!.id;
    const tagged = plan('judge_mean', { tagId: tag }, 'walk-index');
    expect(tagged).toMatch(walks('failures_by_judge'));
    expect(tagged).toMatch(/SEARCH t USING INDEX eval_item_tags_tag \(tag_id=\? AND item_id=\?\)/);
    expect(tagged).not.toMatch(/TEMP B-TREE|SCAN/);
    // The pair is matched on the key, which no sort index carries: the walk reads each row (by design, see chooseFailurePlan).
    const versus = plan('str_em', { versus: { run: runB, metric: 'str_em', threshold: 0.5, mode: 'a-right-b-wrong' } }, 'walk-index');
    expect(versus).toMatch(/^SEARCH a USING INDEX failures_by_str_em \(run_id=\? AND str_em>\?\)/);
    expect(versus).toMatch(/SEARCH b USING INDEX sqlite_autoindex_eval_items_\d+ \(run_id=\? AND key=\?\)/);
    expect(versus).not.toMatch(/TEMP B-TREE|SCAN/);
  });
});

describe('filter-then-sort reads only the filtered entries of a covering index', () => {
  it('narrowed by the status, the type or a threshold, sorting the matching items alone', () => {
    const cases: [FailureSort, FailureFilter, RegExp][] = [
      ['rouge_l', { status: 'failed' }, walks('failures_by_status', ' AND status=\\?\\)')],
      ['rouge_l', { type: 'constraint' }, /^SEARCH a USING COVERING INDEX failures_by_\w*type \(run_id=\? AND ambiguity_type=\?\)/],
      ['latency_ms', { thresholds: [{ metric: 'str_em', below: 0.1 }] }, walks('failures_by_str_em', ' AND str_em<\\?\\)')],
    ];
    for (const [sort, filter, index] of cases) {
      const p = plan(sort, filter, 'filter-then-sort');
      expect(p, JSON.stringify(filter)).toMatch(index);
      expect(p.split(' | '), JSON.stringify(filter)).toEqual([expect.any(String), 'USE TEMP B-TREE FOR ORDER BY']);
    }
  });
});

describe('filter-then-sort in position order', () => {
  it('reads a status\'s or a type\'s entries in their own position order, with no sort step', () => {
    for (const filter of [{ status: 'failed' }, { type: 'constraint', collapsed: true }, { status: 'done', type: 'semantic' }] as FailureFilter[]) {
      const p = plan('position', filter, 'filter-then-sort');
      expect(p, JSON.stringify(filter)).toMatch(/^SEARCH a USING COVERING INDEX failures_by_(status|type) \(run_id=\? AND (status|ambiguity_type)=\?\)$/);
      for (const direction of ['asc', 'desc'] as const) {
        const walked = failurePageIds(db, runA, filter, 'position', direction, 30, 5, 'walk-index');
        expect(walked.length, JSON.stringify(filter)).toBeGreaterThan(0);
        expect(failurePageIds(db, runA, filter, 'position', direction, 30, 5, 'filter-then-sort'), JSON.stringify(filter)).toEqual(walked);
      }
    }
  });
});

describe('counts read a covering index', () => {
  it('of the narrowest filter, with no sort step', () => {
    expect(explained(countFailuresQuery(runA, {}))).toMatch(/^SEARCH a USING COVERING INDEX \w+ \(run_id=\?\)$/);
    expect(explained(countFailuresQuery(runA, { status: 'failed' }))).toBe('SEARCH a USING COVERING INDEX failures_by_status (run_id=? AND status=?)');
    expect(explained(countFailuresQuery(runA, { type: 'semantic', collapsed: true }))).toMatch(/^SEARCH a USING COVERING INDEX failures_by_\w*type \(run_id=\? AND ambiguity_type=\?\)$/);
    expect(explained(countFailuresQuery(runA, { thresholds: [{ metric: 'rouge_l', below: 0.1 }] }))).toBe('SEARCH a USING COVERING INDEX failures_by_rouge (run_id=? AND rouge_l<?)');
  });
});

describe('the statements explained are the ones a page runs', () => {
  it('a page of each plan gives the same ids, the tags of its items among them', () => {
    const filter: FailureFilter = { status: 'done', thresholds: [{ metric: 'str_em', atLeast: 0.5 }] };
    const walked = failurePageIds(db, runA, filter, 'rouge_l', 'desc', 40, 20, 'walk-index');
    expect(walked).toHaveLength(40);
    expect(failurePageIds(db, runA, filter, 'rouge_l', 'desc', 40, 20, 'filter-then-sort')).toEqual(walked);
    const tags = currentTagKeys(db, walked);
    expect([...tags.keys()].every((id) => walked.includes(id) && (id - 1) % 13 === 0)).toBe(true);
  });
});
