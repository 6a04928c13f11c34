import fs from 'node:fs';
import path from 'node:path';
import { openDatabase } from '../../db/connection';
import type { WritableDB } from '../../db/sql';
import { scorePredictionsFile } from '../../electron/services/evaluation/score';
import { AMBIGUITY_TYPES } from '../../shared/domain';
import { rng, words } from '../helpers/synthetic';
import { sizedId, type BenchContext, type Measurement } from './harness';

/**
 * Scoring (issue 11): 10,000 predictions scored with every non-LLM metric (STR-EM, rougeLsum
 * with stemming against two references, token EM/F1, D-F1, DR-F1, citation precision, answer
 * counts), overall and per type with 1,000-resample bootstrap intervals, in at most 5 s: the whole
 * `evaluation:score` path, from reading the JSON Lines file and the gold in SQLite to the report.
 */

function sentence(random: () => number, length: number, inject?: string): string {
  const body = words(random, length).split(' ');
  if (inject) body.splice(Math.floor(random() * body.length), 0, inject);
  const text = body.join(' ');
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
}

function paragraph(random: () => number, sentences: number, answers: string[] = []): string {
  return Array.from({ length: sentences }, (_, i) => sentence(random, 14 + Math.floor(random() * 8), answers[i])).join(' ');
}

/** Instances shaped like ASQA/MARCH: 2-3 interpretations with an answer and aliases, two reference long answers of ~70 words, cited fragments. */
function fill(db: WritableDB, count: number): { answers: string[][] } {
  const random = rng(29);
  db.exec(`INSERT INTO datasets (id, name, source_format, licence, attribution) VALUES (1, 'bench eval', 'awb', 'CC BY 4.0', 'synthetic')`);
  db.exec(`INSERT INTO corpora (id, name) VALUES (1, 'bench')`);
  const question = db.prepare('INSERT INTO base_questions (id, dataset_id, source_id, question, hops) VALUES (?, 1, ?, ?, 2)');
  const instance = db.prepare(
    `INSERT INTO instances (id, base_question_id, dataset_id, ambiguity_type, status, stage, hops, interpretation_count) VALUES (?, ?, 1, ?, 'ready', 'filter', 2, ?)`,
  );
  const interpretation = db.prepare(
    `INSERT INTO interpretations (id, instance_id, position, clarified_question, short_answer, answer_aliases) VALUES (?, ?, ?, ?, ?, ?) `,
  );
  const passage = db.prepare(`INSERT INTO passages (id, corpus_id, title, text, content_hash) VALUES (?, 1, ?, ?, randomblob(16))`);
  const evidence = db.prepare('INSERT INTO evidence (id, instance_id, interpretation_id, rank, passage_id) VALUES (?, ?, NULL, ?, ?)');
  const citation = db.prepare('INSERT INTO interpretation_citations (interpretation_id, position, evidence_id) VALUES (?, 0, ?)');
  const longAnswer = db.prepare('INSERT INTO long_answers (instance_id, position, text) VALUES (?, ?, ?)');
  const answers: string[][] = [];
  let interpretationId = 0;
  let passageId = 0;
  db.transaction(() => {
    for (let id = 1; id <= count; id++) {
      question.run(id, `q${id}`, `What ${words(random, 10)}?`);
      const k = 2 + Math.floor(random() * 2);
      instance.run(id, id, AMBIGUITY_TYPES[id % 3]!, k);
      const gold: string[] = [];
      for (let p = 0; p < k; p++) {
        interpretationId++;
        passageId++;
        const answer = words(random, 1 + Math.floor(random() * 3));
        gold.push(answer);
        interpretation.run(interpretationId, id, p, `Which ${words(random, 12)}?`, answer, JSON.stringify([words(random, 2)]));
        passage.run(passageId, `Page ${passageId}`, words(random, 30));
        evidence.run(passageId, id, p + 1, passageId);
        citation.run(interpretationId, passageId);
      }
      answers.push(gold);
      longAnswer.run(id, 0, paragraph(random, 4, gold));
      longAnswer.run(id, 1, paragraph(random, 4, gold));
    }
  })();
  return { answers };
}

/** The row's id before scoring was measured at two sizes: kept for the larger size, so the history still matches it. */
const SCORING_10K_ID = 'score-10-000-predictions-every-non-llm-metric-per-type-1-000-res';

/** At two sizes ten times apart (1,000 and 10,000 items; 100 and 1,000 with --quick), so that the bench reports how scoring grows. */
export async function benchEvaluation(ctx: BenchContext): Promise<Measurement[]> {
  const out: Measurement[] = [];
  for (const count of ctx.quick ? [100, 1_000] : [1_000, 10_000]) out.push(await benchScoring(ctx, count));
  return out;
}

async function benchScoring(ctx: BenchContext, count: number): Promise<Measurement> {
  const db = openDatabase(path.join(ctx.dir, `evaluation-${count}.db`));
  const { answers } = fill(db, count);
  const random = rng(31);
  const file = path.join(ctx.dir, `predictions-${count}.jsonl`);
  const lines: string[] = [];
  for (let id = 1; id <= count; id++) {
    const gold = answers[id - 1]!;
    // A system that finds some interpretations: about half of the gold answers, some wrong ones.
    const found = gold.filter(() => random() < 0.5);
    const short = [...found, ...(random() < 0.3 ? [words(random, 2)] : [])];
    lines.push(JSON.stringify({ source_id: `q${id}`, answer: paragraph(random, 5, short), short_answers: short, citations: [1, random() < 0.5 ? 2 : 9] }));
  }
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
  const cpu = process.cpuUsage();
  const started = performance.now();
  const report = await scorePredictionsFile(db, { predictions: file, dataset: 'bench eval', rouge: 'rougeLsum', resamples: 1000, seed: 1 });
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  db.close();
  ctx.log(`  ${count.toLocaleString('en-US')} items: CPU time ${((used.user + used.system) / 1e6).toFixed(2)} s of ${seconds.toFixed(2)} s wall (the wall time counts waits for a busy machine)`);
  ctx.log(`  STR-EM ${report.metrics.str_em?.toFixed(1)}, ROUGE-L ${report.metrics.rouge_l?.toFixed(1)}, D-F1 ${report.metrics.d_f1?.toFixed(1)}`);
  return {
    id: count === 10_000 ? SCORING_10K_ID : sizedId('scoring', count),
    series: 'scoring',
    size: { count, of: 'items' },
    name: `score ${count.toLocaleString('en-US')} predictions, every non-LLM metric, per type, 1,000-resample CIs`,
    value: seconds,
    unit: 's',
    target: count >= 10_000 ? { max: 5 } : undefined,
  };
}
