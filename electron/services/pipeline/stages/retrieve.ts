import { insertEvidence } from '../../../../db/queries/evidence';
import { listInterpretations, listSubQuestions } from '../../../../db/queries/interpretations';
import { cosine } from '../../../../shared/vectors';
import { getPassages } from '../../../../db/queries/passages';
import { getOrCreateProvenance } from '../../../../db/queries/provenance';
import { groupTransaction } from '../../../../db/sql';
import { AppError } from '../../../../shared/api';
import { fillBridges } from '../../../../shared/pipeline-rules';
import type { EvidenceRow } from '../retrieval-work';
import { active, cachedCompute, failed, finish, type InstanceItem, type Outcome, type StageContext } from './context';

/** Evidence per interpretation: passages pooled over its sub-questions, re-ranked by its clarified question. */

/** Re-ranks pooled evidence by an embeddings endpoint's similarity to the clarified question. */
async function rerankByEndpoint(ctx: StageContext, question: string, rows: EvidenceRow[]): Promise<EvidenceRow[]> {
  const rerank = ctx.config.rerank;
  if (rerank.provider !== 'openai' || rows.length === 0) return rows;
  const passages = getPassages(ctx.db, rows.map((r) => r.passageId));
  const embedder = ctx.llm.embedder(rerank.endpoint, rerank.model, rerank.dimensions);
  const [query, ...vectors] = await embedder.embed([question, ...rows.map((r) => {
    const p = passages.get(r.passageId)!;
    return p.title ? `${p.title}\n${p.text}` : p.text;
  })]);
  return rows
    .map((row, i) => ({ ...row, score: cosine(query!, vectors[i]!) }))
    .sort((a, b) => b.score - a.score || a.rank - b.rank)
    .map((row, i) => ({ ...row, rank: i + 1 }));
}

export async function retrieve(ctx: StageContext, inst: InstanceItem): Promise<Outcome> {
  const item = `inst:${inst.id}`;
  const interpretations = active(listInterpretations(ctx.db, inst.id));
  const subs = listSubQuestions(ctx.db, inst.id);
  const { corpus, mode, k } = ctx.config.retrieval;
  const rerank = ctx.config.rerank;
  const evidenceModel = await ctx.prepareRetrieval();
  const collected: EvidenceRow[][] = [];
  for (const interpretation of interpretations) {
    const request = {
      clarifiedQuestion: interpretation.clarified_question ?? interpretation.condition ?? '',
      // No placeholder reaches a query, even in sub-questions stored before they were filled in.
      subQuestions: fillBridges(subs.filter((s) => s.interpretation_id === interpretation.id).map((s) => s.question)),
      k,
      mode,
      ...(corpus ? { corpus } : {}),
      ...(evidenceModel ? { model: evidenceModel } : {}),
    };
    // Only what the evidence rows need is kept: the ranked passage ids, scores and origins.
    const pooled = await cachedCompute(ctx, 'evidence', request, () => ctx.work.evidence(request));
    if (rerank.provider === 'openai') {
      try {
        collected.push(await cachedCompute(ctx, 'evidence', { ...request, rerank }, () => rerankByEndpoint(ctx, request.clarifiedQuestion, pooled)));
      } catch (error) {
        if (error instanceof AppError && error.code === 'cancelled') throw error;
        return failed(ctx, 'retrieve', item, [{ ok: false, reason: `re-ranking with ${rerank.model} (endpoint ${rerank.endpoint}) failed: ${(error as Error).message}` }]);
      }
    } else {
      collected.push(pooled);
    }
  }
  groupTransaction(ctx.db, () => {
    const reranker = rerank.provider === 'openai' ? `${rerank.endpoint}/${rerank.model}` : (evidenceModel ?? 'the corpus vectors');
    const provenanceId = getOrCreateProvenance(ctx.db, {
      source: 'rule',
      detail: `retrieve: ${mode}, k=${k}, pooled over sub-questions, re-ranked by the clarified question with ${reranker}`,
      model: null,
      promptVersion: null,
      callId: null,
    });
    interpretations.forEach((interpretation, i) => {
      for (const passage of collected[i]!) {
        insertEvidence(ctx.db, { instanceId: inst.id, interpretationId: interpretation.id, rank: passage.rank, passageId: passage.passageId, score: passage.score, origin: passage.origins.join(', '), provenanceId });
      }
    });
    finish(ctx, 'retrieve', inst.id);
  });
  return 'done';
}
