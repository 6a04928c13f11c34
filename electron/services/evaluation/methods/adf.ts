import { numberedPassages } from '../../../../shared/eval/methods/format';
import type { MethodInterpretation, MethodOutput, RetrievedPassage } from '../../../../shared/eval/types';
import { reciprocalRankFusion } from '../../../../shared/retrieval/fusion';
import { adaptiveK, kMeans, queryState } from '../../../../shared/retrieval/geometry';
import { centroid, cosine, dispersion, silhouette } from '../../../../shared/vectors';
import { findCorpusByName } from '../../../../db/queries/corpora';
import { getVectors } from '../../../../db/queries/embeddings';
import { defaultModelFor, embedderFor } from '../../retrieval/models';
import type { ItemRun } from '../context';
import { output, pool } from './common';

/**
 * ADF (paper 002, Algorithm 1): a geometry gate on the 2k passages first retrieved; if the
 * question is ambiguous or uncertain, k-means clusters (k by eq. 4) near the question become
 * sub-questions, each searched directly and through a HyDE passage with the run's retrieval
 * mode, fused by RRF (η = 60), then one structured synthesis; else a plain answer from the top k.
 */

type State = 'ambiguous' | 'uncertain' | 'unambiguous';

/** The gate: dispersion and 2-means silhouette of the passages' vectors; the clusters kept when it opens. */
async function gate(run: ItemRun, initial: RetrievedPassage[]): Promise<{ state: State; clusters: RetrievedPassage[][] }> {
  const { db, settings } = run.env;
  const corpusId = run.env.corpus ? (findCorpusByName(db, run.env.corpus)?.id ?? null) : null;
  const model = defaultModelFor(db, corpusId);
  if (!model) {
    run.note('ADF gate skipped: the corpus has no vectors, so the question was answered as unambiguous');
    run.metric('adf_gate_skipped', true);
    return { state: 'unambiguous', clusters: [] };
  }
  const vectors = getVectors(
    db,
    model.id,
    initial.map((p) => p.id),
  );
  const withVectors = initial.filter((p) => vectors.has(p.id));
  const v = withVectors.map((p) => [...vectors.get(p.id)!]);
  if (v.length < 4) run.note(`ADF gate: only ${v.length} passages have vectors; clustering is unreliable below 4`);
  const variance = dispersion(v);
  const separability = (v.length >= 2 ? silhouette(v, kMeans(v, 2)) : null) ?? 0;
  const state = queryState(variance, separability, { variance: settings.adf.varianceThreshold, separation: settings.adf.separabilityThreshold });
  run.step('plan', 'geometry gate', { variance, separability, state, passages: v.length, model: model.name, thresholds: settings.adf });
  run.metric('adf_state', state);
  if (state === 'unambiguous' || v.length < 2) return { state, clusters: [] };
  const [embedded] = await embedderFor(db, model).embedQueries([run.question]);
  const assignment = kMeans(v, adaptiveK(v.length));
  const groups = new Map<number, number[]>();
  assignment.forEach((c, i) => groups.set(c, [...(groups.get(c) ?? []), i]));
  const clusters: RetrievedPassage[][] = [];
  for (const [c, members] of groups) {
    const similarity = embedded ? cosine([...embedded], centroid(members.map((i) => v[i]!))) : 0;
    const kept = similarity >= settings.adf.relevanceThreshold;
    run.step('plan', `cluster ${c + 1}`, { passages: members.map((i) => withVectors[i]!.key), similarity, kept });
    if (kept) clusters.push(members.map((i) => withVectors[i]!));
  }
  return { state, clusters };
}

/** The unambiguous path: a plain retrieve-then-generate over the top k. */
async function answerPlainly(run: ItemRun, initial: RetrievedPassage[]): Promise<MethodOutput> {
  const passages = initial.slice(0, run.env.k);
  const a = await run.mustAsk('eval_adf_answer', { question: run.question, passages: numberedPassages(passages) }, { label: 'answer (unambiguous)' });
  return output({ longAnswer: a.answer, shortAnswers: null, citations: run.cite(a.citations, passages), retrieved: passages });
}

/** One cluster's sub-question and its two pathways, in the run's retrieval mode: the sub-question itself, and its HyDE passage as the query. */
async function pathways(run: ItemRun, cluster: RetrievedPassage[], n: number): Promise<{ question: string; direct: RetrievedPassage[]; latent: RetrievedPassage[] }> {
  const intent = await run.mustAsk('eval_adf_intent', { question: run.question, passages: numberedPassages(cluster) }, { kind: 'plan', label: `sub-question ${n}` });
  const question = intent.sub_question;
  const hyde = await run.ask(`eval_adf_hyde_${run.env.settings.adf.style}`, { question }, { label: `HyDE ${n}` });
  const direct = await run.search(question, { label: `direct ${n}`, hyde: '' });
  if (!hyde) {
    run.note(`HyDE failed for sub-question ${n}: its latent pathway is empty`);
    run.metric('hyde_failures', ((run.methodMetrics.hyde_failures as number | undefined) ?? 0) + 1);
    run.step('retrieve', `latent ${n}`, { error: 'HyDE failed: no passage to search with', passages: [] });
    return { question, direct, latent: [] };
  }
  const latent = await run.search(hyde.passage, { label: `latent ${n}`, hyde: '' });
  return { question, direct, latent };
}

export async function adf(run: ItemRun): Promise<MethodOutput> {
  const { k, settings } = run.env;
  const initial = await run.search(run.question, { k: 2 * k, label: 'initial retrieval (2k)' });
  const { clusters } = await gate(run, initial);
  if (clusters.length === 0) return answerPlainly(run, initial);
  const rankings: RetrievedPassage[][] = [];
  const interpretations: MethodInterpretation[] = [];
  for (const [n, cluster] of clusters.slice(0, settings.maxInterpretations).entries()) {
    const found = await pathways(run, cluster, n + 1);
    rankings.push(found.direct, found.latent);
    interpretations.push({ question: found.question, condition: null, answer: null, citations: [], retrieved: pool([found.direct, found.latent]) });
  }
  const byKey = new Map(rankings.flat().map((p) => [p.key, p]));
  const fused = reciprocalRankFusion(rankings.map((r) => r.map((p) => p.key)))
    .slice(0, k)
    .map((f, i) => ({ ...byKey.get(f.id)!, rank: i + 1, score: f.score }));
  run.step('retrieve', 'RRF', { passages: fused.map((p) => ({ key: p.key, score: p.score })) });
  const a = await run.mustAsk(
    `eval_adf_synthesis_${settings.adf.style}`,
    { question: run.question, interpretations: interpretations.map((i, n) => `${n + 1}. ${i.question}`).join('; '), passages: numberedPassages(fused) },
    { label: 'structured synthesis' },
  );
  a.interpretations.forEach((x, i) => {
    const target = interpretations[i];
    if (target) {
      target.answer = x.answer.trim() || null;
      target.citations = run.cite(x.citations, fused);
    }
  });
  return output({
    longAnswer: a.long_answer,
    shortAnswers: a.interpretations.map((i) => i.answer),
    citations: [...new Set(interpretations.flatMap((i) => i.citations))],
    interpretations,
    retrieved: fused,
  });
}
