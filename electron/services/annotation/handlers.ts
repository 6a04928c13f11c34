import path from 'node:path';
import { protocolVersions } from '../../../db/queries/protocols';
import type { WritableDB } from '../../../db/sql';
import { AppError, type Handlers, type JudgingSession } from '../../../shared/api';
import type { EventBus } from '../events';
import { adjudicate, campaignAgreement, disagreements } from './agreement';
import { campaignList, campaignView, createCampaign, sampleInstances } from './campaigns';
import { DatabaseJudging, type JudgingStore } from './judging';
import { exportJudgments, importJudgments } from './judgments-io';
import { exportPack, importPack, PackJudging } from './packs';
import { allProtocols, resolveProtocol, saveProtocol } from './protocols';

type AnnotationOperation =
  | 'protocols:list'
  | 'protocols:get'
  | 'protocols:versions'
  | 'protocols:save'
  | 'campaigns:list'
  | 'campaigns:get'
  | 'campaigns:preview'
  | 'campaigns:create'
  | 'judge:queue'
  | 'judge:item'
  | 'judge:decide'
  | 'judge:undo'
  | 'judge:skip'
  | 'packs:export'
  | 'packs:import'
  | 'judgments:export'
  | 'judgments:import'
  | 'agreement:get'
  | 'disagreements:list'
  | 'adjudications:save';

/**
 * Judging sessions stay open between calls: a pack's results file is read once, then appended
 * to. Keyed by campaign and annotator, or by the pack's absolute path.
 */
class Sessions {
  private readonly open = new Map<string, JudgingStore>();

  constructor(private readonly db: WritableDB) {}

  get(session: JudgingSession): JudgingStore {
    const key = 'pack' in session ? `pack:${path.resolve(session.pack)}` : `db:${session.campaignId}:${session.annotator}`;
    let store = this.open.get(key);
    if (!store) {
      store = 'pack' in session ? new PackJudging(path.resolve(session.pack)) : new DatabaseJudging(this.db, session.campaignId, session.annotator);
      this.open.set(key, store);
    }
    return store;
  }

  /** After an import the database's stores must re-read; packs keep their own state. */
  forgetDatabaseSessions(): void {
    for (const key of [...this.open.keys()]) if (key.startsWith('db:')) this.open.delete(key);
  }
}

export function annotationHandlers(db: WritableDB, events: EventBus): Pick<Handlers, AnnotationOperation> {
  const sessions = new Sessions(db);
  const changed = (reason: string) => {
    sessions.forgetDatabaseSessions();
    events.emit('data:changed', { reason });
  };
  return {
    'protocols:list': () => allProtocols(db),
    'protocols:get': ({ id }) => resolveProtocol(db, id),
    'protocols:versions': ({ key }) => {
      const versions = protocolVersions(db, key);
      if (versions.length === 0) throw new AppError('not_found', `No protocol "${key}"`);
      return versions;
    },
    'protocols:save': ({ document }) => {
      const saved = saveProtocol(db, document);
      changed('protocol');
      return saved;
    },
    'campaigns:list': () => campaignList(db),
    'campaigns:get': ({ id }) => campaignView(db, id),
    'campaigns:preview': ({ selection, seed }) => {
      const { ids, perType } = sampleInstances(db, selection, seed ?? 1);
      return { items: ids.length, perType };
    },
    'campaigns:create': (request) => {
      const view = createCampaign(db, request);
      changed('campaign');
      return view;
    },
    'judge:queue': ({ session }) => sessions.get(session).queue(),
    'judge:item': ({ session, position }) => sessions.get(session).item(position),
    'judge:decide': ({ session, ...decision }) => sessions.get(session).decide(decision),
    'judge:undo': ({ session }) => sessions.get(session).undo(),
    'judge:skip': ({ session, instanceId, itemMs }) => {
      sessions.get(session).skip(instanceId, itemMs);
      return { ok: true };
    },
    'packs:export': ({ campaignId, annotator, path: file }) => exportPack(db, { campaignId, annotator, file: path.resolve(file) }),
    'packs:import': ({ path: file, campaignId }) => {
      const report = importPack(db, path.resolve(file), campaignId === undefined ? {} : { campaignId });
      changed('judgments');
      return report;
    },
    'judgments:export': ({ campaignId, format, path: file }) => exportJudgments(db, campaignId, format, path.resolve(file)),
    'judgments:import': ({ campaignId, format, path: file }) => {
      const report = importJudgments(db, campaignId, format, path.resolve(file));
      if (report.committed) changed('judgments');
      return report;
    },
    'agreement:get': ({ campaignId, resamples, seed }) => campaignAgreement(db, campaignId, { resamples, seed }),
    'disagreements:list': ({ campaignId }) => disagreements(db, campaignId),
    'adjudications:save': (request) => {
      adjudicate(db, request);
      return disagreements(db, request.campaignId);
    },
  };
}
