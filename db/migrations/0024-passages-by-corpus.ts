import type { Migration } from '../migrate';

/**
 * An index of passages by corpus, in id order within each corpus (an index on one column keeps
 * its rows' ids in order after it). Embedding reads a corpus's passages batch by batch after the
 * last id it read; the only index that began with the corpus was the deduplication one
 * (corpus, content hash), in hash order, so each batch read every later passage of the corpus and
 * sorted them by id: the cost of a whole embedding grew with the square of the corpus. With this
 * index a batch reads its own rows and no others, already in order.
 */
export const passagesByCorpus: Migration = {
  version: 24,
  name: 'passages-by-corpus',
  up(db) {
    db.exec('CREATE INDEX passages_by_corpus ON passages (corpus_id)');
  },
};
