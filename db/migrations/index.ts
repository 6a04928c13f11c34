import type { Migration } from '../migrate';
import { createCore } from './0001-create-core';
import { retrieval } from './0002-retrieval';
import { annotation } from './0003-annotation';
import { pipeline } from './0004-pipeline';
import { ftsHashSize } from './0005-fts-hashsize';

/** Every migration, in order. Append only: a shipped migration never changes. */
export const migrations: readonly Migration[] = [createCore, retrieval, annotation, pipeline, ftsHashSize];
