import path from 'node:path';
import { protocolVersions } from '../../../db/queries/protocols';
import type { WritableDB } from '../../../db/sql';
import { AppError, type Handlers, type JudgingSession } from '../../../shared/api';
import { adjudicate, campaignAgreement, disagreements } from './agreement';
import { campaignList, campaignView, createCampaign, sampleInstances } from './campaigns';
import { DatabaseJudging, type JudgingStore } from './judging';
import { exportJudgments, importJudgments, judgmentFormatOf } from './judgments-io';
import { exportPack, importPack, PackJudging } from './packs';
import { allProtocols, protocolDocument, resolveProtocol, saveProtocol } from './protocols';
import type { Workbench } from '../workbench';

type AnnotationOperation =
  | 'protocol:list'
  | 'protocol:get'
  | 'protocol:versions'
  | 'protocol:save'
  | 'protocol:document'
  | 'campaign:list'
  | 'campaign:get'
  | 'campaign:preview'
  | 'campaign:create'
  | 'judging:queue'
  | 'judging:item'
  | 'judging:decide'
  | 'judging:undo'
  | 'judging:skip'
  | 'pack:export'
  | 'pack:import'
  | 'judgment:export'
  | 'judgment:import'
  | 'agreement:get'
  | 'agreement:disagreements'
  | 'agreement:adjudicate';

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

export function annotationHandlers(workbench: Workbench): Pick<Handlers, AnnotationOperation> {
  const { db, events } = workbench;
  const sessions = new Sessions(db);
  const changed = (reason: string) => {
    sessions.forgetDatabaseSessions();
    events.emit('data:changed', { reason });
  };
  return {
    'protocol:list': () => allProtocols(db),
    'protocol:get': ({ id }) => resolveProtocol(db, id),
    'protocol:versions': ({ key }) => {
      const versions = protocolVersions(db, key);
      if (versions.length === 0) throw new AppError('not_found', `No protocol "${key}"`);
      return versions;
    },
    'protocol:save': ({ document }) => {
      const saved = saveProtocol(db, document);
      changed('protocol');
      return saved;
    },
    'protocol:document': ({ reference }) => {
      const [key, at] = reference.split('@');
      const found = resolveProtocol(db, /^\d+$/.test(key!) ? Number(key) : key!);
      if (at === undefined) return protocolDocument(found);
      const chosen = protocolVersions(db, found.key).find((p) => String(p.version) === at);
      if (!chosen) throw new AppError('not_found', `No version ${at} of "${found.key}"`);
      return protocolDocument(chosen);
    },
    'campaign:list': () => campaignList(db),
    'campaign:get': ({ id }) => campaignView(db, id),
    'campaign:preview': ({ selection, seed }) => {
      const { ids, perType } = sampleInstances(db, selection, seed ?? 1);
      return { items: ids.length, perType };
    },
    'campaign:create': (request) => {
      const view = createCampaign(db, request);
      changed('campaign');
      return view;
    },
    'judging:queue': ({ session }) => sessions.get(session).queue(),
    'judging:item': ({ session, position }) => sessions.get(session).item(position),
    'judging:decide': ({ session, ...decision }) => sessions.get(session).decide(decision),
    'judging:undo': ({ session }) => sessions.get(session).undo(),
    'judging:skip': ({ session, instanceId, itemMs }) => {
      sessions.get(session).skip(instanceId, itemMs);
      return { ok: true };
    },
    'pack:export': ({ campaignId, annotator, path: file }) => exportPack(db, { campaignId, annotator, file: path.resolve(file) }),
    'pack:import': ({ path: file, campaignId }) => {
      const report = importPack(db, path.resolve(file), campaignId === undefined ? {} : { campaignId });
      changed('judgments');
      return report;
    },
    'judgment:export': ({ campaignId, format, path: file }) => exportJudgments(db, campaignId, format, path.resolve(file)),
    'judgment:import': ({ campaignId, format, path: file }) => {
      const report = importJudgments(db, campaignId, format ?? judgmentFormatOf(file), path.resolve(file));
      if (report.committed) changed('judgments');
      return report;
    },
    'agreement:get': ({ campaignId, resamples, seed }) => campaignAgreement(db, campaignId, { resamples, seed }),
    'agreement:disagreements': ({ campaignId }) => disagreements(db, campaignId),
    'agreement:adjudicate': (request) => {
      adjudicate(db, request);
      return disagreements(db, request.campaignId);
    },
  };
}
