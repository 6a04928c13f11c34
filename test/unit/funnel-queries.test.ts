import { describe, expect, it } from 'vitest';
import { detectedQuestionCount } from '../../db/queries/base-questions';
import { instanceFunnelRows } from '../../db/queries/instances';
import { callsPerStage, datasetSpend } from '../../db/queries/llm-calls';
import { keptByType } from '../../db/queries/pipeline-items';
import { promptVersionsPerStage } from '../../db/queries/provenance';
import type { WritableDB } from '../../db/sql';
import { planRelease } from '../../electron/services/release/plan';
import { ReleaseDraft } from '../../shared/api';
import { labelTables } from '../../shared/construction';
import { DOMAINS } from '../../shared/domain';
import { memoryDb } from '../helpers/db';
import { fillInstances, rng } from '../helpers/synthetic';

/**
 * The pipeline funnel's and the release card's counts read what the pipeline wrote (its calls,
 * detection rows and votes) or the instance table's counts, instead of scanning every base
 * question and instance. Each is compared here with the query it replaced, written out in full,
 * on a database whose calls name items that exist, items that do not, and strings that only look
 * like an item (`bq:07`, `inst:5x`).
 */

const scopes: number[][] = [[], [1], [2], [1, 2], [3]];
const inScope = (ids: number[]) => (ids.length ? `WHERE dataset_id IN (${ids.join(',')})` : '');
const items = (ids: number[]) => `(SELECT 'bq:' || id FROM base_questions ${inScope(ids)} UNION ALL SELECT 'inst:' || id FROM instances ${inScope(ids)})`;

const reference = {
  callsPerStage: (db: WritableDB, ids: number[]) =>
    db
      .prepare(
        `SELECT coalesce(c.stage, '') AS stage, c.model, count(*) AS calls, coalesce(sum(c.cost_usd), 0) AS cost,
                coalesce(sum(c.cost_usd IS NULL AND c.prompt_tokens IS NOT NULL), 0) AS unpriced
         FROM llm_calls c WHERE c.item IN ${items(ids)} GROUP BY 1, 2 ORDER BY 1, 2`,
      )
      .all(),
  spendCalls: (db: WritableDB, ids: number[]) =>
    db
      .prepare(
        `SELECT coalesce(c.stage, '') AS stage, c.model, count(*) AS calls, coalesce(sum(c.prompt_tokens), 0) AS promptTokens FROM llm_calls c
         WHERE c.stage IN ('detect', 'clarify', 'decompose', 'retrieve', 'answer', 'merge', 'shorten', 'collide', 'filter') AND c.item IN ${items(ids)}
         GROUP BY 1, 2 ORDER BY 1, 2`,
      )
      .all(),
  promptVersions: (db: WritableDB, ids: number[]) =>
    db
      .prepare(
        `SELECT DISTINCT coalesce(c.stage, '') AS stage, p.prompt_version FROM provenance p JOIN llm_calls c ON c.id = p.call_id
         WHERE p.prompt_version IS NOT NULL AND c.item IN ${items(ids)} ORDER BY 1, 2`,
      )
      .all(),
  detected: (db: WritableDB, ids: number[]) =>
    db
      .prepare(
        `SELECT count(*) FROM base_questions b WHERE EXISTS (SELECT 1 FROM pipeline_items p WHERE p.stage = 'detect' AND p.item = 'bq:' || b.id AND p.status = 'done')
         ${ids.length ? `AND b.dataset_id IN (${ids.join(',')})` : ''}`,
      )
      .pluck()
      .get(),
  kept: (db: WritableDB, ids: number[]) =>
    Object.fromEntries(
      (
        db
          .prepare(
            `SELECT ambiguity_type AS type, count(*) AS n FROM instances WHERE status = 'ready' AND ambiguity_type <> 'unspecified'
             ${ids.length ? `AND dataset_id IN (${ids.join(',')})` : ''} GROUP BY 1`,
          )
          .all() as { type: string; n: number }[]
      ).map((r) => [r.type, r.n]),
    ),
  funnelRows: (db: WritableDB, ids: number[]) =>
    db
      .prepare(
        `SELECT i.ambiguity_type, i.stage, i.status, i.removed_stage,
                EXISTS (SELECT 1 FROM pipeline_items p WHERE p.stage = 'shorten' AND p.item = 'inst:' || i.id AND p.status = 'done') AS shortened,
                EXISTS (SELECT 1 FROM pipeline_items p WHERE p.stage = 'collide' AND p.item = 'inst:' || i.id AND p.status = 'done') AS collided, count(*) AS n,
                avg(b.hops) AS hops, avg(length(trim(b.question)) - length(replace(trim(b.question), ' ', '')) + 1) AS words
         FROM instances i JOIN base_questions b ON b.id = i.base_question_id
         WHERE i.ambiguity_type <> 'unspecified' AND EXISTS (SELECT 1 FROM detection_votes v WHERE v.base_question_id = i.base_question_id)
         ${ids.length ? `AND i.dataset_id IN (${ids.join(',')})` : ''}
         GROUP BY i.ambiguity_type, i.stage, i.status, i.removed_stage, shortened, collided`,
      )
      .all(),
};

const sorted = <T>(rows: T[]) => [...rows].sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));

function fill(db: WritableDB): void {
  fillInstances(db, 900, 41);
  const random = rng(43);
  db.exec(`INSERT INTO datasets (id, name, source_format) VALUES (3, 'empty', 'awb')`);
  // Fewer removed instances than the filler makes, so that most types have kept ones; topics too.
  db.exec(`UPDATE instances SET status = 'ready', removed_stage = NULL, removed_reason = NULL WHERE status = 'removed' AND id % 3 <> 0`);
  db.exec(`UPDATE instances SET domain = CASE id % 5 WHEN 0 THEN NULL WHEN 1 THEN 'math-logic' ELSE 'history' END,
                                answerability = CASE id % 7 WHEN 0 THEN 'unanswerable' END`);
  // Every kind of answerability: an instance's own, "ambiguous" by its interpretations, its base question's, none.
  db.exec(`UPDATE instances SET interpretation_count = 1 WHERE id % 11 IN (0, 1)`);
  db.exec(`UPDATE base_questions SET answerability = 'answerable' WHERE id % 2 = 0`);
  const bq = db.prepare('SELECT id FROM base_questions ORDER BY id').pluck().all() as number[];
  const inst = db.prepare('SELECT id FROM instances ORDER BY id').pluck().all() as number[];
  const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)]!;
  const itemOf = () => {
    const r = random();
    if (r < 0.4) return `bq:${pick(bq)}`;
    if (r < 0.8) return `inst:${pick(inst)}`;
    return pick([`bq:0${pick(bq)}`, `inst:${pick(inst)}x`, 'bq:99999', 'inst:99999', null, 'eval:3', `bq:${pick(bq)}.0`]);
  };
  const call = db.prepare(
    `INSERT INTO llm_calls (request_hash, endpoint, model, stage, request, response, status, prompt_tokens, cost_usd, item)
     VALUES (?, 'http://127.0.0.1:1/v1', ?, ?, '{}', '{}', 'ok', ?, ?, ?)`,
  );
  const provenance = db.prepare(`INSERT INTO provenance (source, detail, model, prompt_version, call_id) VALUES ('llm', ?, 'm', ?, ?)`);
  const stages = ['detect', 'clarify', 'answer', 'filter', null, 'eval.eval_reader'];
  for (let n = 0; n < 1500; n++) {
    const id = Number(
      call.run(`h${n}`, pick(['fake/a', 'fake/b']), pick(stages), random() < 0.2 ? null : Math.floor(random() * 500), random() < 0.3 ? null : random() / 100, itemOf()).lastInsertRowid,
    );
    if (random() < 0.3) provenance.run(`p${n}`, pick(['v1', 'v2', null]), id);
  }
  const item = db.prepare(`INSERT OR IGNORE INTO pipeline_items (stage, item, status) VALUES (?, ?, ?)`);
  for (let n = 0; n < 600; n++) item.run(pick(['detect', 'detect', 'shorten', 'collide']), itemOf() ?? 'bq:1', pick(['done', 'done', 'failed']));
  for (const id of inst.filter((i) => i % 9 === 0)) item.run('shorten', `inst:${id}`, 'done');
}

describe('funnel and card counts driven by what the pipeline wrote', () => {
  it('equal the queries that scanned every item, for every dataset scope, with and without votes', () => {
    const db = memoryDb();
    fill(db);
    const check = () => {
      for (const ids of scopes) {
        expect(callsPerStage(db, ids)).toEqual(reference.callsPerStage(db, ids));
        // datasetSpend splits each stage and model further by type and mode: summed back, it is the reference's.
        const spend = new Map<string, { stage: string; model: string; calls: number; promptTokens: number }>();
        for (const r of datasetSpend(db, ids)) {
          const s = spend.get(`${r.stage}/${r.model}`) ?? { stage: r.stage, model: r.model, calls: 0, promptTokens: 0 };
          s.calls += r.calls;
          s.promptTokens += r.promptTokens;
          spend.set(`${r.stage}/${r.model}`, s);
        }
        expect([...spend.values()].sort((a, b) => (a.stage + a.model < b.stage + b.model ? -1 : 1))).toEqual(reference.spendCalls(db, ids));
        expect(promptVersionsPerStage(db, ids)).toEqual(reference.promptVersions(db, ids));
        expect(detectedQuestionCount(db, ids)).toBe(reference.detected(db, ids));
        expect(keptByType(db, { datasetIds: ids })).toEqual(reference.kept(db, ids));
        expect(sorted(instanceFunnelRows(db, ids))).toEqual(sorted(reference.funnelRows(db, ids)));
      }
    };
    // No votes at all: every instance is left out of the funnel's rows, at once.
    expect(instanceFunnelRows(db, [])).toEqual([]);
    check();
    const vote = db.prepare(`INSERT INTO detection_votes (base_question_id, ambiguity_type, model, verdict) VALUES (?, 'semantic', 'm', 'yes')`);
    for (const id of db.prepare('SELECT id FROM base_questions WHERE id % 3 <> 0').pluck().all() as number[]) vote.run(id);
    expect(instanceFunnelRows(db, []).length).toBeGreaterThan(3);
    check();
    // The calls did reach every kind of item, so the comparisons above were not of empty lists.
    expect(callsPerStage(db, [1]).reduce((a, r) => a + r.calls, 0)).toBeGreaterThan(100);
    expect(promptVersionsPerStage(db, []).length).toBeGreaterThan(2);
    expect(detectedQuestionCount(db, [])).toBeGreaterThan(50);
  });

  it('a release card counts topics and answerability in the plan\'s own pass, as a count of its instances did', () => {
    const db = memoryDb();
    fill(db);
    for (const selection of [{}, { datasets: ['synthetic A'] }, { types: ['syntactic' as const], statuses: ['ready' as const] }]) {
      const plan = planRelease(db, ReleaseDraft.parse({ name: 'Card', version: '1.0.0', selection }), { appVersion: 'test', date: '2026-11-26' });
      const rows = db
        .prepare(
          `SELECT i.ambiguity_type, i.domain, coalesce(i.answerability, CASE WHEN i.interpretation_count >= 2 THEN 'ambiguous' END, b.answerability) AS answerability, count(*) AS n
           FROM instances i JOIN base_questions b ON b.id = i.base_question_id
           WHERE i.id IN (SELECT value FROM json_each(?)) GROUP BY 1, 2, 3`,
        )
        .all(JSON.stringify(Array.from(plan.ids))) as { ambiguity_type: string; domain: string | null; answerability: string | null; n: number }[];
      expect(plan.count).toBeGreaterThan(50);
      // Same tables, and the same key order in them (the card's JSON keeps it).
      expect(JSON.stringify(plan.card.labels)).toBe(JSON.stringify(labelTables(rows, DOMAINS)));
    }
  });
});
