import { listCorpora } from '../../../db/queries/corpora';
import { countEmbeddings, listModels } from '../../../db/queries/embeddings';
import type { ReadableDB } from '../../../db/sql';
import type { CorpusSummary } from '../../../shared/api';

export function listCorpusSummaries(db: ReadableDB): CorpusSummary[] {
  const models = listModels(db);
  return listCorpora(db).map((c) => ({
    id: c.id,
    name: c.name,
    passages: c.passages,
    models: models
      .map((m) => ({ name: m.name, dimensions: m.dimensions, lexical: m.lexical === 1, vectors: countEmbeddings(db, m.id, c.id) }))
      .filter((m) => m.vectors > 0),
  }));
}
