import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { findAnnotatorId } from '../../../db/queries/annotators';
import { addItemTime, annotatorQueue, findAssignment, setSkipped } from '../../../db/queries/assignments';
import { findCampaignByUid, getCampaign } from '../../../db/queries/campaigns';
import { currentJudgments, insertJudgment, judgmentExists, markConflict } from '../../../db/queries/judgments';
import { getProtocol } from '../../../db/queries/protocols';
import { transaction, type WritableDB } from '../../../db/sql';
import { AppError, type InstanceDetail, type JudgingItem, type JudgingQueue, type PackExportReport, type PackImportReport } from '../../../shared/api';
import type { Protocol } from '../../../shared/protocols';
import { instanceDetail } from '../browse';
import { sha256 } from '../hash';
import { judgedEvalAnswer } from './judged-answer';
import { blindView, buildQueue, checkDecision, type Decision, type JudgingStore } from './judging';
import { MAX_PACK_BYTES, MAX_RESULTS_BYTES, readTextBounded } from './bounded-read';

/**
 * Offline packs. `awb pack export` writes one JSON file holding everything an annotator needs
 * (the assigned instances with their evidence, the protocol and its guidelines, the campaign's
 * id) and a SHA-256 checksum of it. The annotator opens it in the app, with no network and no
 * database; every decision is appended (and flushed to disk) to a results file beside the pack,
 * so a crash loses at most the decision being typed. `awb pack import` merges the results back.
 */

export const PACK_FORMAT = 'awb-pack/1';
export const RESULTS_FORMAT = 'awb-pack-results/1';

export interface Pack {
  format: typeof PACK_FORMAT;
  campaign: { uid: string; id: number; name: string; blind: boolean };
  annotator: string;
  protocol: Protocol;
  created_at: string;
  /** `eval_answer`: in a judge-validation campaign, the evaluated method's answer people rate. */
  items: { position: number; instance_id: number; instance: InstanceDetail; eval_answer?: NonNullable<JudgingItem['evalAnswer']> }[];
  checksum: string;
}

export function resultsPath(packFile: string): string {
  return `${packFile}.results.jsonl`;
}

function checksumOf(pack: Omit<Pack, 'checksum'>): string {
  return `sha256:${sha256(JSON.stringify(pack))}`;
}


export function exportPack(db: WritableDB, options: { campaignId: number; annotator: string; file: string }): PackExportReport {
  const started = performance.now();
  const campaign = getCampaign(db, options.campaignId);
  if (!campaign) throw new AppError('not_found', `No campaign ${options.campaignId}`);
  const annotatorId = findAnnotatorId(db, options.annotator);
  const queue = annotatorId === undefined ? [] : annotatorQueue(db, campaign.id, annotatorId);
  if (queue.length === 0) throw new AppError('not_found', `"${options.annotator}" has no items in campaign ${campaign.id}.`);
  const body: Omit<Pack, 'checksum'> = {
    format: PACK_FORMAT,
    campaign: { uid: campaign.uid, id: campaign.id, name: campaign.name, blind: campaign.blind === 1 },
    annotator: options.annotator,
    protocol: getProtocol(db, campaign.protocol_id)!,
    created_at: new Date().toISOString(),
    items: queue.map((a) => {
      const evalAnswer = judgedEvalAnswer(db, campaign.selection, a.instance_id);
      return { position: a.position, instance_id: a.instance_id, instance: blindView(instanceDetail(db, a.instance_id), campaign.blind === 1), ...(evalAnswer ? { eval_answer: evalAnswer } : {}) };
    }),
  };
  const text = JSON.stringify({ ...body, checksum: checksumOf(body) });
  fs.mkdirSync(path.dirname(options.file), { recursive: true });
  const temporary = `${options.file}.partial-${process.pid}`;
  fs.writeFileSync(temporary, text);
  fs.renameSync(temporary, options.file);
  return {
    file: options.file,
    campaign: campaign.id,
    annotator: options.annotator,
    items: body.items.length,
    bytes: Buffer.byteLength(text),
    seconds: Number(((performance.now() - started) / 1000).toFixed(3)),
  };
}

/** Reads and verifies a pack: complete JSON, the right format, an unchanged checksum. */
export function readPack(file: string): Pack {
  const text = readTextBounded(file, MAX_PACK_BYTES, 'pack');
  let pack: Pack;
  try {
    pack = JSON.parse(text) as Pack;
  } catch {
    throw new AppError('invalid_input', `${path.basename(file)} is not complete JSON: the pack is truncated or damaged. Nothing was imported.`);
  }
  if (pack?.format !== PACK_FORMAT) throw new AppError('invalid_input', `${path.basename(file)} is not a workbench pack (format ${String(pack?.format)}).`);
  const { checksum, ...body } = pack;
  if (checksumOf(body) !== checksum) {
    throw new AppError('invalid_input', `${path.basename(file)} was changed after it was exported (its checksum does not match). Nothing was imported.`);
  }
  return pack;
}

const ResultHeader = z.object({ format: z.literal(RESULTS_FORMAT), campaign_uid: z.string(), annotator: z.string(), pack_checksum: z.string(), created_at: z.string() }).strict();
const ResultEvent = z.discriminatedUnion('type', [
  z
    .object({
      type: z.literal('judgment'),
      uid: z.string().min(8),
      instance_id: z.number().int().positive(),
      criterion: z.string().min(1),
      value: z.string().nullable(),
      comment: z.string().default(''),
      item_ms: z.number().min(0).nullable().default(null),
      undo: z.boolean().default(false),
      created_at: z.string(),
    })
    .strict(),
  z.object({ type: z.literal('skip'), instance_id: z.number().int().positive(), item_ms: z.number().min(0), created_at: z.string() }).strict(),
]);
type ResultEvent = z.output<typeof ResultEvent>;

export interface ResultsFile {
  header: z.output<typeof ResultHeader>;
  events: ResultEvent[];
  /** A last line cut off mid-write (a crash while a decision was being saved), left out. */
  incompleteLastLine: boolean;
}

export function readResults(file: string): ResultsFile | null {
  if (!fs.existsSync(file)) return null;
  const text = readTextBounded(file, MAX_RESULTS_BYTES, 'results file');
  const lines = text.split('\n');
  // The text after the last newline is either empty or a line cut off mid-write.
  const incompleteLastLine = lines[lines.length - 1] !== '';
  const complete = lines.slice(0, -1);
  let header: z.output<typeof ResultHeader> | null = null;
  const events: ResultEvent[] = [];
  complete.forEach((line, i) => {
    const where = `${path.basename(file)}: line ${i + 1}`;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new AppError('invalid_input', `${where} is not valid JSON; nothing was imported.`);
    }
    if (i === 0) {
      const parsed = ResultHeader.safeParse(value);
      if (!parsed.success) throw new AppError('invalid_input', `${where}: not a results header (${parsed.error.issues[0]?.message}).`);
      header = parsed.data;
      return;
    }
    const parsed = ResultEvent.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new AppError('invalid_input', `${where} · ${issue.path.join('.')}: ${issue.message}; nothing was imported.`);
    }
    events.push(parsed.data);
  });
  if (!header) throw new AppError('invalid_input', `${path.basename(file)} has no header line.`);
  return { header, events, incompleteLastLine };
}

/** Judging inside a pack, offline: state comes from the pack and its results file. */
export class PackJudging implements JudgingStore {
  private readonly pack: Pack;
  private readonly results: string;
  private events: ResultEvent[] = [];
  private readonly byInstance: Map<number, Pack['items'][number]>;

  constructor(readonly file: string) {
    this.pack = readPack(file);
    this.results = resultsPath(file);
    const existing = readResults(this.results);
    if (existing) {
      if (existing.header.pack_checksum !== this.pack.checksum) {
        throw new AppError('conflict', `${path.basename(this.results)} belongs to another pack; move it away to start afresh.`);
      }
      this.events = existing.events;
      // A line cut off by a crash is dropped, so the next decision starts on a line of its own.
      if (existing.incompleteLastLine) {
        const text = fs.readFileSync(this.results, 'utf8');
        fs.truncateSync(this.results, Buffer.byteLength(text.slice(0, text.lastIndexOf('\n') + 1)));
      }
    } else {
      this.append({ format: RESULTS_FORMAT, campaign_uid: this.pack.campaign.uid, annotator: this.pack.annotator, pack_checksum: this.pack.checksum, created_at: new Date().toISOString() });
    }
    this.byInstance = new Map(this.pack.items.map((i) => [i.instance_id, i]));
  }

  /** Appends one line and flushes it to disk before returning. */
  private append(record: object): void {
    const fd = fs.openSync(this.results, 'a');
    try {
      fs.writeSync(fd, `${JSON.stringify(record)}\n`);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  }

  private current(instanceId: number): Map<string, { value: string | null; comment: string }> {
    const values = new Map<string, { value: string | null; comment: string }>();
    for (const e of this.events) if (e.type === 'judgment' && e.instance_id === instanceId) values.set(e.criterion, { value: e.value, comment: e.comment });
    return values;
  }

  queue(): JudgingQueue {
    const values = new Map<number, Map<string, { value: string | null; comment: string }>>();
    const skipped = new Set<number>();
    for (const e of this.events) {
      if (e.type === 'skip') skipped.add(e.instance_id);
      else {
        if (!values.has(e.instance_id)) values.set(e.instance_id, new Map());
        values.get(e.instance_id)!.set(e.criterion, { value: e.value, comment: e.comment });
      }
    }
    const decided = new Map([...values].map(([id, m]) => [id, [...m].filter(([, v]) => v.value !== null).map(([c]) => c)]));
    const commented = new Set([...values].filter(([, m]) => [...m.values()].some((v) => v.comment.trim())).map(([id]) => id));
    const rows = this.pack.items.map((item) => ({
      position: item.position,
      instanceId: item.instance_id,
      question: item.instance.baseQuestion.question,
      ambiguityType: item.instance.ambiguityType,
      skipped: skipped.has(item.instance_id),
    }));
    return buildQueue(this.pack.protocol, rows, decided, commented, {
      campaign: { id: null, uid: this.pack.campaign.uid, name: this.pack.campaign.name, blind: this.pack.campaign.blind },
      annotator: this.pack.annotator,
      offline: true,
      resultsFile: this.results,
    });
  }

  item(position: number): JudgingItem {
    const item = this.pack.items.find((i) => i.position === position);
    if (!item) throw new AppError('not_found', `No item ${position + 1} in this pack.`);
    const timeMs = this.events
      .filter((e) => e.instance_id === item.instance_id)
      .reduce((s, e) => s + (e.type === 'skip' ? e.item_ms : (e.item_ms ?? 0)), 0);
    return {
      position,
      instance: item.instance,
      values: Object.fromEntries(this.current(item.instance_id)),
      timeMs,
      skipped: this.events.some((e) => e.type === 'skip' && e.instance_id === item.instance_id),
      ...(item.eval_answer ? { evalAnswer: item.eval_answer } : {}),
    };
  }

  decide(decision: Decision): JudgingItem {
    checkDecision(this.pack.protocol, decision);
    const item = this.byInstance.get(decision.instanceId);
    if (!item) throw new AppError('invalid_input', `Instance ${decision.instanceId} is not in this pack.`);
    const event: ResultEvent = {
      type: 'judgment',
      uid: randomUUID(),
      instance_id: decision.instanceId,
      criterion: decision.criterion,
      value: decision.value,
      comment: decision.comment,
      item_ms: Math.round(decision.itemMs),
      undo: false,
      created_at: new Date().toISOString(),
    };
    this.append(event);
    this.events.push(event);
    return this.item(item.position);
  }

  undo(): { instanceId: number; criterion: string; position: number } | null {
    // The latest decision no undo has taken back: walking back, each undo cancels the next decision.
    let pending = 0;
    for (let i = this.events.length - 1; i >= 0; i--) {
      const e = this.events[i]!;
      if (e.type !== 'judgment') continue;
      if (e.undo) {
        pending++;
        continue;
      }
      if (pending > 0) {
        pending--;
        continue;
      }
      let before: Extract<ResultEvent, { type: 'judgment' }> | undefined;
      for (let j = i - 1; j >= 0 && !before; j--) {
        const x = this.events[j]!;
        if (x.type === 'judgment' && x.instance_id === e.instance_id && x.criterion === e.criterion) before = x;
      }
      const event: ResultEvent = { ...e, uid: randomUUID(), value: before?.value ?? null, comment: before?.comment ?? '', item_ms: null, undo: true, created_at: new Date().toISOString() };
      this.append(event);
      this.events.push(event);
      return { instanceId: e.instance_id, criterion: e.criterion, position: this.byInstance.get(e.instance_id)!.position };
    }
    return null;
  }

  skip(instanceId: number, itemMs: number): void {
    if (!this.byInstance.has(instanceId)) throw new AppError('invalid_input', `Instance ${instanceId} is not in this pack.`);
    const event: ResultEvent = { type: 'skip', instance_id: instanceId, item_ms: Math.round(itemMs), created_at: new Date().toISOString() };
    this.append(event);
    this.events.push(event);
  }
}


/**
 * Merges a pack's results into the database. Idempotent (every event has an id; known ones are
 * passed over). Refuses, importing nothing: a pack changed since export, results of another
 * pack, a campaign this database does not have (or not the one named), and judgments for
 * instances not assigned to the annotator or off the protocol's scales. A value that changes
 * what the database held is kept with its history and flagged as a conflict to resolve.
 */
export function importPack(db: WritableDB, file: string, options: { campaignId?: number } = {}): PackImportReport {
  const started = performance.now();
  // The results file is checked against its pack (whose checksum covers the campaign and the
  // annotator), so results cannot be passed off as another annotator's or another campaign's.
  const packFile = file.endsWith('.results.jsonl') ? file.slice(0, -'.results.jsonl'.length) : file;
  if (!fs.existsSync(packFile)) {
    throw new AppError('not_found', `The results need their pack beside them: ${path.basename(packFile)} is missing. Nothing was imported.`);
  }
  const pack = readPack(packFile);
  const results = readResults(resultsPath(packFile));
  if (!results) throw new AppError('not_found', `No results beside ${path.basename(packFile)} (expected ${path.basename(resultsPath(packFile))}): nothing has been judged in this pack yet.`);
  if (results.header.pack_checksum !== pack.checksum) {
    throw new AppError('invalid_input', `The results file belongs to another pack (its checksum differs). Nothing was imported.`);
  }
  if (results.header.annotator !== pack.annotator || results.header.campaign_uid !== pack.campaign.uid) {
    throw new AppError(
      'invalid_input',
      `The results file says it holds ${results.header.annotator}'s judgments for campaign ${results.header.campaign_uid}, but its pack is ${pack.annotator}'s for ${pack.campaign.uid}. Nothing was imported.`,
    );
  }
  const campaign = findCampaignByUid(db, results.header.campaign_uid);
  if (!campaign) {
    throw new AppError('conflict', `This pack belongs to campaign "${pack.campaign.name}" (${results.header.campaign_uid}), which this database does not hold. Nothing was imported.`);
  }
  if (options.campaignId !== undefined && options.campaignId !== campaign.id) {
    throw new AppError('conflict', `This pack is for campaign ${campaign.id} ("${campaign.name}"), not campaign ${options.campaignId}. Nothing was imported.`);
  }
  const annotatorId = findAnnotatorId(db, results.header.annotator);
  if (annotatorId === undefined) throw new AppError('conflict', `"${results.header.annotator}" is not an annotator of this campaign. Nothing was imported.`);
  const protocol = getProtocol(db, campaign.protocol_id)!;

  // Check every event before writing anything.
  results.events.forEach((e, i) => {
    const where = `line ${i + 2}`;
    const assignment = findAssignment(db, campaign.id, annotatorId, e.instance_id);
    if (!assignment) throw new AppError('invalid_input', `${where}: instance ${e.instance_id} is not assigned to ${results.header.annotator} in this campaign. Nothing was imported.`);
    if (e.type === 'judgment') {
      try {
        checkDecision(protocol, e);
      } catch (error) {
        throw new AppError('invalid_input', `${where}: ${(error as Error).message} Nothing was imported.`);
      }
    }
  });

  const report: PackImportReport = {
    file,
    campaign: campaign.id,
    annotator: results.header.annotator,
    events: results.events.length,
    imported: 0,
    already: 0,
    conflicts: 0,
    skippedItems: 0,
    incompleteLastLine: results.incompleteLastLine,
    seconds: 0,
  };
  transaction(db, () => {
    const before = new Map<number, Map<string, string | null>>();
    const touched = new Map<string, number>();
    for (const e of results.events) {
      const assignment = findAssignment(db, campaign.id, annotatorId, e.instance_id)!;
      if (e.type === 'skip') {
        // A flag, so importing it twice changes nothing (the time it took is counted with the judgments).
        setSkipped(db, assignment.id, true);
        report.skippedItems++;
        continue;
      }
      if (judgmentExists(db, e.uid)) {
        report.already++;
        continue;
      }
      if (!before.has(assignment.id)) before.set(assignment.id, new Map(currentJudgments(db, assignment.id).map((j) => [j.criterion, j.value])));
      const id = insertJudgment(db, {
        uid: e.uid,
        assignmentId: assignment.id,
        criterion: e.criterion,
        value: e.value,
        comment: e.comment,
        source: 'pack',
        itemMs: e.item_ms,
        createdAt: e.created_at,
      });
      if (e.item_ms) addItemTime(db, assignment.id, e.item_ms);
      touched.set(`${assignment.id}\u0000${e.criterion}`, id);
      report.imported++;
    }
    // A value that replaces a different one the database already had is a conflict.
    for (const [key, lastId] of touched) {
      const [assignmentId, criterion] = key.split('\u0000') as [string, string];
      const previous = before.get(Number(assignmentId))?.get(criterion);
      const now = currentJudgments(db, Number(assignmentId)).find((j) => j.criterion === criterion)?.value ?? null;
      if (previous !== undefined && previous !== null && previous !== now) {
        markConflict(db, lastId);
        report.conflicts++;
      }
    }
  });
  report.seconds = Number(((performance.now() - started) / 1000).toFixed(3));
  return report;
}
