import type { Migration } from '../migrate';
import { createCore } from './0001-create-core';
import { retrieval } from './0002-retrieval';
import { annotation } from './0003-annotation';
import { pipeline } from './0004-pipeline';
import { ftsHashSize } from './0005-fts-hashsize';
import { instanceSearchInterpretations } from './0006-instance-search-interpretations';
import { releases } from './0007-releases';
import { evaluation } from './0008-evaluation';
import { team } from './0009-team';
import { failures } from './0010-failures';
import { releaseChunks } from './0011-release-chunks';
import { failureIndexes } from './0012-failure-indexes';
import { evalMethods } from './0013-eval-methods';
import { batchesAndVotesNotNeeded } from './0014-batches-and-votes-not-needed';
import { condambigqaCitationsFailureTags } from './0015-condambigqa-citations-failure-tags';
import { vectorCodeBlocks } from './0016-vector-code-blocks';
import { instanceOrder } from './0017-instance-order';
import { instanceSearchPrefixes } from './0018-instance-search-prefixes';
import { constructionAnswerabilityDomains } from './0019-construction-answerability-domains';
import { instanceSearchOneLetterPrefix } from './0020-instance-search-one-letter-prefix';
import { vectorCodeBlockIds } from './0021-vector-code-block-ids';
import { triggersWithoutUpdateAliases } from './0022-triggers-without-update-aliases';
import { instancesByBaseQuestion } from './0023-instances-by-base-question';
import { passagesByCorpus } from './0024-passages-by-corpus';
import { failureCounts } from './0025-failure-counts';
import { embeddingModelFits } from './0026-embedding-model-fits';
import { baseQuestionsQuestionWithSource } from './0027-base-questions-question-with-source';
import { baseQuestionsFacetIndex } from './0028-base-questions-facet-index';
import { baseQuestionsSortIndexes } from './0029-base-questions-sort-indexes';
import { searchIndexesMerged } from './0030-search-indexes-merged';
import { evalItemVersions } from './0031-eval-item-versions';
import { llmCallsRunIndexDropped } from './0032-llm-calls-run-index-dropped';
import { instanceQuestionOrder } from './0033-instance-question-order';

/** Every migration, in order. Append only: a shipped migration never changes. */
export const migrations: readonly Migration[] = [
  createCore,
  retrieval,
  annotation,
  pipeline,
  ftsHashSize,
  instanceSearchInterpretations,
  releases,
  evaluation,
  team,
  failures,
  releaseChunks,
  failureIndexes,
  evalMethods,
  batchesAndVotesNotNeeded,
  condambigqaCitationsFailureTags,
  vectorCodeBlocks,
  instanceOrder,
  instanceSearchPrefixes,
  constructionAnswerabilityDomains,
  instanceSearchOneLetterPrefix,
  vectorCodeBlockIds,
  triggersWithoutUpdateAliases,
  instancesByBaseQuestion,
  passagesByCorpus,
  failureCounts,
  embeddingModelFits,
  baseQuestionsQuestionWithSource,
  baseQuestionsFacetIndex,
  baseQuestionsSortIndexes,
  searchIndexesMerged,
  evalItemVersions,
  llmCallsRunIndexDropped,
  instanceQuestionOrder,
];
