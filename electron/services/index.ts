import path from 'node:path';
import { engineVersions, openDatabase, openReadOnlyDatabase } from '../../db/connection';
import { schemaVersion } from '../../db/migrate';
import { getStats } from '../../db/queries/stats';
import type { ReadableDB, WritableDB } from '../../db/sql';
import { AppError, type AppInfo, type Attribution, type Handlers } from '../../shared/api';
import { IMPORT_FORMAT_NAMES } from '../../shared/domain';
import {
  baseQuestionDetail,
  baseQuestionFacetsView,
  baseQuestionPage,
  instanceDetail,
  instanceFacets,
  instancePage,
  listDatasetSummaries,
} from './browse';
import { annotationHandlers } from './annotation/handlers';
import { auditWrites, flushAudit } from './team/audit';
import { teamHandlers } from './team/handlers';
import { pipelineHandlers } from './pipeline/handlers';
import { evaluationHandlers } from './evaluation/handlers';
import { releaseHandlers } from './release/handlers';
import { scoringHandlers } from './evaluation/score-handlers';
import { failureHandlers } from './failures/handlers';
import { bundledAttributions, seedDemoOnce } from './demo';
import { EventBus } from './events';
import { exportJsonl } from './export';
import { importFile } from './import/import-file';
import { JobRunner } from './jobs';
import { importCorpus } from './corpus/import-corpus';
import { listCorpusSummaries } from './retrieval/corpora';
import { embedCorpus } from './retrieval/models';
import { ambiguityCues } from './retrieval/cues';
import { evaluateRetrieval } from './retrieval/evaluate';
import { collectEvidence } from './retrieval/evidence';
import { EmbeddedRetriever } from './retrieval/search';

export interface ServiceOptions {
  databasePath: string;
  mode: AppInfo['mode'];
  version: string;
  log?: (message: string) => void;
  /** An offline pack to open at start (pack mode). */
  pack?: string;
  /** How long a write waits for another process's lock (default 5 s; the CLI, which holds nobody up, waits longer). */
  busyTimeoutMs?: number;
}

/** Everything the handlers share: the database, events and the job runner. */
export class Workbench {
  readonly db: WritableDB;
  /**
   * A read-only connection for the operations that only read (browsing, counts, export): in WAL
   * mode they see every committed write and never an open transaction's, and SQLite refuses a
   * write on it. An in-memory database has one connection, so it reads from `db`.
   */
  readonly reader: ReadableDB;
  readonly events = new EventBus();
  readonly jobs = new JobRunner(this.events);
  /**
   * API keys handed over by the desktop shell (kept there with Electron's safeStorage), by the
   * name of the environment variable they stand for. Memory only: never the database or logs.
   */
  readonly apiKeys: Record<string, string> = {};

  constructor(readonly options: ServiceOptions) {
    this.db = openDatabase(options.databasePath, { ...(options.log ? { log: options.log } : {}), ...(options.busyTimeoutMs !== undefined ? { busyTimeoutMs: options.busyTimeoutMs } : {}) });
    this.reader = options.databasePath === ':memory:' ? this.db : openReadOnlyDatabase(options.databasePath);
  }

  /**
   * A separate connection for a long write (an import), so that its open transaction is not
   * seen by the reads the UI keeps making meanwhile. In-memory databases cannot be shared, so
   * they use the one connection.
   */
  writer(): { db: WritableDB; release(): void } {
    if (this.options.databasePath === ':memory:') return { db: this.db, release: () => undefined };
    const db = openDatabase(this.options.databasePath, this.options.busyTimeoutMs !== undefined ? { busyTimeoutMs: this.options.busyTimeoutMs } : {});
    return { db, release: () => db.close() };
  }

  /** Closes the database, first writing any audit row another process's lock held back. */
  close(): void {
    if (!this.db.open) return;
    flushAudit(this.db);
    if (this.reader !== this.db) this.reader.close();
    this.db.close();
  }
}

/** Leaves out the keys whose value is undefined (for options under exactOptionalPropertyTypes-like checks). */
function definedOnly<T extends object>(value: T): { [K in keyof T]: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as { [K in keyof T]: Exclude<T[K], undefined> };
}

/**
 * The handlers every client calls through `dispatch`. Writes are audited here, whichever client
 * made them (IPC, HTTP or the CLI): who (the signed-in account over the network, else the owner),
 * when, what, and whether it succeeded.
 */
export function createHandlers(workbench: Workbench): Handlers {
  return auditWrites(workbench.db, serviceHandlers(workbench), workbench.events);
}

function serviceHandlers(workbench: Workbench): Handlers {
  const db = workbench.db;
  const reader = workbench.reader;
  return {
    'app:info': () => {
      const versions = engineVersions(db);
      return {
        name: 'Ambiguity Workbench',
        version: workbench.options.version,
        mode: workbench.options.mode,
        databasePath: workbench.options.databasePath,
        schemaVersion: schemaVersion(db),
        sqlite: versions.sqlite,
        sqliteVec: versions.sqliteVec,
        node: process.versions.node,
        pack: workbench.options.pack ?? null,
      };
    },
    'stats:get': () => getStats(reader),
    'dataset:list': () => listDatasetSummaries(reader),
    'dataset:seed-demo': async () => {
      const reports = await seedDemoOnce(db);
      if (reports.length) workbench.events.emit('data:changed', { reason: 'seed-demo' });
      return reports;
    },
    'dataset:attributions': () => {
      const bundled = bundledAttributions();
      const imported: Attribution[] = listDatasetSummaries(reader)
        .filter((d) => !bundled.some((b) => b.name === d.name))
        .map((d) => ({ name: d.name, licence: d.licence, attribution: d.attribution, url: d.url, bundled: false }));
      return [...bundled, ...imported];
    },
    'instance:list': (query) => instancePage(reader, query),
    'instance:facets': (filter) => instanceFacets(reader, filter),
    'instance:get': ({ id }) => instanceDetail(reader, id),
    'base-question:list': (query) => baseQuestionPage(reader, query),
    'base-question:facets': (filter) => baseQuestionFacetsView(reader, filter),
    'base-question:get': ({ id }) => baseQuestionDetail(reader, id),
    'dataset:import': (request) => {
      const file = path.resolve(request.path);
      const job = workbench.jobs.start('import', `Import ${path.basename(file)} as ${IMPORT_FORMAT_NAMES[request.format]}`, 'bytes', async (control) => {
        const writer = workbench.writer();
        try {
          return await importFile(writer.db, {
            file,
            format: request.format,
            ...(request.dataset ? { dataset: request.dataset } : {}),
            skipInvalid: request.skipInvalid,
            ...(request.rejectsFile ? { rejectsFile: path.resolve(request.rejectsFile) } : {}),
            maxRecordBytes: Math.round(request.maxRecordMb * 1024 * 1024),
            signal: control.signal,
            onProgress: ({ bytes, totalBytes }) => control.progress(bytes, totalBytes),
          });
        } finally {
          writer.release();
        }
      });
      return { jobId: job.id };
    },
    'dataset:export': (request) => {
      const file = path.resolve(request.path);
      const job = workbench.jobs.start('export', `Export to ${path.basename(file)}`, 'records', (control) =>
        exportJsonl(reader, {
          file,
          datasets: request.datasets,
          signal: control.signal,
          onProgress: (done, total) => control.progress(done, total),
        }),
      );
      return { jobId: job.id };
    },
    'retrieval:search': (request) => new EmbeddedRetriever(db).search(request),
    'retrieval:cues': (request) => ambiguityCues(db, new EmbeddedRetriever(db), request),
    'retrieval:evidence': ({ question, subQuestions, ...rest }) =>
      collectEvidence(new EmbeddedRetriever(db), { clarifiedQuestion: question, subQuestions, ...definedOnly(rest) }),
    'retrieval:evaluate': (request) => {
      const file = path.resolve(request.questions);
      const job = workbench.jobs.start('retrieval-eval', `Retrieval quality on ${path.basename(file)} (${request.mode}, k=${request.k})`, 'questions', async (control) => {
        const writer = workbench.writer();
        try {
          return await evaluateRetrieval(writer.db, new EmbeddedRetriever(writer.db), {
            ...definedOnly(request),
            questions: file,
            onProgress: (done, total) => control.progress(done, total),
          });
        } finally {
          writer.release();
        }
      });
      return { jobId: job.id };
    },
    'corpus:list': () => listCorpusSummaries(reader),
    'corpus:import': (request) => {
      const file = path.resolve(request.path);
      const job = workbench.jobs.start('corpus-import', `Import passages from ${path.basename(file)}`, 'records', async (control) => {
        const writer = workbench.writer();
        try {
          return await importCorpus(writer.db, {
            file,
            format: request.format,
            ...(request.corpus ? { corpus: request.corpus } : {}),
            skipInvalid: request.skipInvalid,
            targetWords: request.targetWords,
            signal: control.signal,
            onProgress: (done, total) => control.progress(done, total),
          });
        } finally {
          writer.release();
        }
      });
      return { jobId: job.id };
    },
    'corpus:embed': (request) => {
      const title = `Embed "${request.corpus}" (${request.provider === 'offline' ? 'offline' : request.model})`;
      const job = workbench.jobs.start('embed', title, 'passages', async (control) => {
        const writer = workbench.writer();
        try {
          return await embedCorpus(writer.db, {
            corpus: request.corpus,
            provider: request.provider,
            ...(request.model ? { model: request.model } : {}),
            ...(request.baseURL ? { baseURL: request.baseURL } : {}),
            apiKeyEnv: request.apiKeyEnv,
            ...(request.dimensions ? { dimensions: request.dimensions } : {}),
            refit: request.refit,
            signal: control.signal,
            onProgress: (done, total) => control.progress(done, total),
          });
        } finally {
          writer.release();
        }
      });
      return { jobId: job.id };
    },
    ...annotationHandlers(db, workbench.events),
    ...teamHandlers(db, workbench.events),
    ...pipelineHandlers(db, workbench.jobs, () => workbench.writer(), () => workbench.apiKeys),
    ...evaluationHandlers(db, workbench.jobs, () => workbench.writer(), () => workbench.apiKeys),
    ...releaseHandlers(db, workbench.jobs, workbench.events, () => workbench.writer(), workbench.options.version),
    ...scoringHandlers(db),
    ...failureHandlers(db, workbench.events),
    'job:list': () => workbench.jobs.list(),
    'job:get': ({ id }) => workbench.jobs.get(id),
    'job:cancel': ({ id }) => workbench.jobs.cancel(id),
  };
}

export { AppError };
