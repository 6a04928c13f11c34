import { randomUUID } from 'node:crypto';
import { campaignAnnotators, getOrCreateAnnotator } from '../../../db/queries/annotators';
import { campaignAssignments, campaignProgress, insertAssignment } from '../../../db/queries/assignments';
import { addCampaignAnnotator, addCampaignItem, campaignItems, getCampaign, insertCampaign, listCampaigns } from '../../../db/queries/campaigns';
import { findDatasetByName } from '../../../db/queries/datasets';
import { instanceIdsMatching, instanceTypesByIds } from '../../../db/queries/instances';
import { getProtocol } from '../../../db/queries/protocols';
import { flaggedInstanceIds } from '../../../db/queries/instance-flags';
import { transaction, type ReadableDB, type WritableDB } from '../../../db/sql';
import { seededRandom } from '../../../shared/statistics';
import { AppError, type CampaignSelection, type CampaignSummary, type CampaignView, type InstanceFilter } from '../../../shared/api';
import { AMBIGUITY_TYPES, type AmbiguityType } from '../../../shared/domain';
import { resolveProtocol } from './protocols';

export interface CreateCampaign {
  name: string;
  protocol: string | number;
  annotators: string[];
  /** Annotators per instance (default: all of them). */
  perInstance?: number;
  seed?: number;
  blind?: boolean;
  selection: CampaignSelection;
}

function shuffle<T>(items: T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** The campaign's instances: filtered, stratified by type when asked, in a seeded order. */
export function sampleInstances(db: ReadableDB, selection: CampaignSelection, seed: number): { ids: number[]; perType: Record<string, number> } {
  const random = seededRandom(seed);
  let candidates: { id: number; ambiguity_type: AmbiguityType }[];
  if (selection.instanceIds?.length) {
    candidates = instanceTypesByIds(db, selection.instanceIds);
    const missing = selection.instanceIds.filter((id) => !candidates.some((c) => c.id === id));
    if (missing.length) throw new AppError('not_found', `No instances ${missing.slice(0, 5).join(', ')}`);
  } else {
    const datasets = (selection.datasets ?? []).map((name) => {
      const row = findDatasetByName(db, name);
      if (!row) throw new AppError('not_found', `No dataset named "${name}"`);
      return row.id;
    });
    const filter: InstanceFilter = { datasets, types: selection.types ?? [], statuses: selection.statuses ?? [], hops: selection.hops ?? [], domains: [], search: '' };
    candidates = instanceIdsMatching(db, filter);
  }
  if (selection.flagged) {
    const flagged = new Set(flaggedInstanceIds(db));
    candidates = candidates.filter((c) => flagged.has(c.id));
  }
  let chosen = candidates;
  if (selection.perType) {
    chosen = [];
    for (const type of AMBIGUITY_TYPES) {
      const ofType = candidates.filter((c) => c.ambiguity_type === type);
      chosen.push(...shuffle(ofType, random).slice(0, selection.perType));
    }
  }
  const ordered = shuffle(chosen, random);
  const perType: Record<string, number> = {};
  for (const c of ordered) perType[c.ambiguity_type] = (perType[c.ambiguity_type] ?? 0) + 1;
  return { ids: ordered.map((c) => c.id), perType };
}

/**
 * Creates a campaign: the sample, then each instance given to `perInstance` annotators, always
 * the ones with the fewest items so far (ties broken in a seeded order), so that workloads differ
 * by at most one item.
 */
export function createCampaign(db: WritableDB, request: CreateCampaign): CampaignView {
  const protocol = resolveProtocol(db, request.protocol);
  const names = [...new Set(request.annotators.map((a) => a.trim()).filter(Boolean))];
  if (names.length === 0) throw new AppError('invalid_input', 'A campaign needs at least one annotator.');
  const perInstance = request.perInstance ?? names.length;
  if (perInstance < 1 || perInstance > names.length) {
    throw new AppError('invalid_input', `Each instance can go to 1 to ${names.length} annotators, not ${perInstance}.`);
  }
  const seed = request.seed ?? 1;
  const { ids, perType } = sampleInstances(db, request.selection, seed);
  if (ids.length === 0) throw new AppError('invalid_input', 'No instance matches the selection.');
  const id = transaction(db, () => {
    const campaignId = insertCampaign(db, {
      uid: randomUUID(),
      name: request.name,
      protocolId: protocol.id,
      selection: { ...request.selection, sampled: perType },
      perInstance,
      seed,
      blind: request.blind ?? true,
    });
    const annotatorIds = names.map((name) => getOrCreateAnnotator(db, name));
    annotatorIds.forEach((a) => addCampaignAnnotator(db, campaignId, a));
    const load = new Map(annotatorIds.map((a) => [a, 0]));
    const random = seededRandom(seed ^ 0x5bd1e995);
    ids.forEach((instanceId, position) => {
      addCampaignItem(db, campaignId, instanceId, position);
      const order = shuffle(annotatorIds, random).sort((a, b) => load.get(a)! - load.get(b)!);
      for (const annotator of order.slice(0, perInstance)) {
        insertAssignment(db, campaignId, instanceId, annotator, load.get(annotator)!);
        load.set(annotator, load.get(annotator)! + 1);
      }
    });
    return campaignId;
  });
  return campaignView(db, id);
}

export function campaignView(db: ReadableDB, id: number): CampaignView {
  const campaign = getCampaign(db, id);
  if (!campaign) throw new AppError('not_found', `No campaign ${id}`);
  const protocol = getProtocol(db, campaign.protocol_id)!;
  const required = protocol.criteria.filter((c) => c.required && c.scale.kind !== 'text').map((c) => c.id);
  return {
    id: campaign.id,
    uid: campaign.uid,
    name: campaign.name,
    createdAt: campaign.created_at,
    blind: campaign.blind === 1,
    seed: campaign.seed,
    perInstance: campaign.per_instance,
    selection: JSON.parse(campaign.selection) as Record<string, unknown>,
    protocol: { id: protocol.id, key: protocol.key, version: protocol.version, name: protocol.name, criteria: protocol.criteria.map((c) => ({ id: c.id, label: c.label, scale: c.scale })) },
    annotators: campaignAnnotators(db, id).map((a) => a.name),
    items: campaignItems(db, id).map((i) => i.instance_id),
    assignments: campaignAssignments(db, id).map((a) => ({ instanceId: a.instance_id, annotator: a.annotator, position: a.position })),
    progress: campaignProgress(db, id, required).map((p) => ({ annotator: p.annotator, total: p.total, done: p.done ?? 0, skipped: p.skipped ?? 0, seconds: Math.round((p.time_ms ?? 0) / 1000) })),
  };
}

export function campaignList(db: ReadableDB): CampaignSummary[] {
  return listCampaigns(db).map((c) => {
    const view = campaignView(db, c.id);
    const total = view.progress.reduce((s, p) => s + p.total, 0);
    const done = view.progress.reduce((s, p) => s + p.done, 0);
    return { id: c.id, name: c.name, protocol: `${view.protocol.name} v${view.protocol.version}`, items: view.items.length, annotators: view.annotators.length, done, total, createdAt: c.created_at };
  });
}
