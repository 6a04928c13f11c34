import type { WritableDB } from '../../db/sql';
import { musiqueRecord, rng } from './synthetic';

/**
 * What a pipeline run stored, with row ids replaced by what they stand for (an instance by its
 * question and type, an interpretation by its instance and position, a provenance by its fields and its call's request hash),
 * table by table, each row as sorted JSON: two databases that ran the same questions compare equal
 * row by row whatever ids their rows got.
 */
export function storedRows(db: WritableDB): Record<string, string[]> {
  const rows = <T>(query: string) => db.prepare(query).all() as T[];
  const instance = new Map(rows<{ id: number; key: string }>("SELECT id, base_question_id || '/' || ambiguity_type AS key FROM instances").map((r) => [r.id, r.key]));
  const interpretation = new Map(rows<{ id: number; instance_id: number; position: number }>('SELECT id, instance_id, position FROM interpretations').map((r) => [r.id, `${instance.get(r.instance_id)}#${r.position}`]));
  const provenance = new Map(rows<{ id: number; key: string }>("SELECT id, source || '|' || detail || '|' || coalesce(model, '') || '|' || coalesce(prompt_version, '') || '|' || coalesce((SELECT request_hash FROM llm_calls c WHERE c.id = provenance.call_id), '') AS key FROM provenance").map((r) => [r.id, r.key]));
  const item = (tag: string | null) => (tag?.startsWith('inst:') ? `inst:${instance.get(Number(tag.slice(5)))}` : tag);
  const mapped = (query: string, map: (row: Record<string, unknown>) => Record<string, unknown>) => rows<Record<string, unknown>>(query).map((r) => JSON.stringify(map(r))).sort();
  const prov = (id: unknown) => (id === null ? null : provenance.get(id as number));
  return {
    instances: mapped('SELECT * FROM instances', ({ id, created_at, updated_at, answerability_provenance_id, domain_provenance_id, ...r }) => ({ key: instance.get(id as number), ...r, a: prov(answerability_provenance_id), d: prov(domain_provenance_id) })),
    interpretations: mapped('SELECT * FROM interpretations', ({ id, instance_id, question_provenance_id, condition_provenance_id, answer_provenance_id, ...r }) => ({ key: interpretation.get(id as number), ...r, q: prov(question_provenance_id), c: prov(condition_provenance_id), a: prov(answer_provenance_id) })),
    subQuestions: mapped('SELECT * FROM sub_questions', ({ interpretation_id, provenance_id, ...r }) => ({ of: interpretation.get(interpretation_id as number), ...r, p: prov(provenance_id) })),
    evidence: mapped('SELECT * FROM evidence', ({ id, instance_id, interpretation_id, provenance_id, ...r }) => ({ of: interpretation.get(interpretation_id as number), ...r, p: prov(provenance_id) })),
    longAnswers: mapped('SELECT * FROM long_answers', ({ id, instance_id, provenance_id, ...r }) => ({ of: instance.get(instance_id as number), ...r, p: prov(provenance_id) })),
    filterVotes: mapped('SELECT * FROM filter_votes', ({ id, instance_id, provenance_id, run_id, ...r }) => ({ of: instance.get(instance_id as number), ...r, p: prov(provenance_id) })),
    detectionVotes: mapped('SELECT * FROM detection_votes', ({ provenance_id, run_id, ...r }) => ({ ...r, p: prov(provenance_id) })),
    items: mapped('SELECT * FROM pipeline_items', ({ updated_at, run_id, item: tag, ...r }) => ({ item: item(tag as string), ...r })),
    provenance: [...provenance.values()].sort(),
    calls: mapped('SELECT * FROM llm_calls', ({ item: tag, ...r }) => ({ ...r, item: item(tag as string | null) })),
    retrievalCache: mapped('SELECT * FROM retrieval_cache', (r) => r),
  };
}


/** A pipeline config that asks every voter (4 detectors, 3 filters) at the fake endpoint, with evidence from `corpus`. */
export function everyVoterConfig(baseURL: string, corpus: string) {
  return {
    endpoints: { fake: { baseURL, maxInFlight: 8, retries: 0, timeoutMs: 5000 } },
    detectors: ['det-a', 'det-b', 'det-c', 'det-d'].map((model) => ({ endpoint: 'fake', model })),
    generator: { endpoint: 'fake', model: 'gen' },
    filters: ['fil-a', 'fil-b', 'fil-c'].map((model) => ({ endpoint: 'fake', model })),
    retrieval: { corpus, mode: 'hybrid', k: 3 },
    concurrency: 16,
    earlyExit: { enabled: false },
  };
}

/** `count` synthetic MuSiQue questions with four paragraphs each (every step supported by one of them). */
export function shortQuestions(count: number, seed: number) {
  const random = rng(seed);
  return Array.from({ length: count }, (_, i) => {
    const record = musiqueRecord(i, random, 200);
    return { ...record, paragraphs: record.paragraphs.slice(0, 4), question_decomposition: record.question_decomposition.map((s) => ({ ...s, paragraph_support_idx: Math.min(s.paragraph_support_idx, 3) })) };
  });
}
