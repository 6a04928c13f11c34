import path from 'node:path';
import { findAnnotatorId } from '../../../db/queries/annotators';
import { annotatorQueue } from '../../../db/queries/assignments';
import { getCampaign } from '../../../db/queries/campaigns';
import { insertAudit } from '../../../db/queries/audit';
import type { WritableDB } from '../../../db/sql';
import { AppError, isOperation, operations, serverPathFields, type AccountRole, type CallContext, type CampaignSummary, type CampaignView, type Handlers, type OperationName, type TeamStatus } from '../../../shared/api';

/**
 * Who may call what over the network in team mode: a table by operation name (an operation not
 * named here is for maintainers only, so a new operation is closed until someone opens it), input
 * checks that depend on the caller (an annotator judges only as themself; blind campaigns hide
 * other people's judgments) and the audit trail of every write.
 */

type Access = 'everyone' | 'readers' | 'annotators' | 'maintainers';

const READS_FOR_ALL_ROLES: readonly string[] = [
  'app:info',
  'stats:get',
  'dataset:list',
  'dataset:attributions',
  'instance:list',
  'instance:facets',
  'instance:get',
  'base-question:list',
  'base-question:facets',
  'base-question:get',
  'corpus:list',
  'retrieval:search',
  'retrieval:cues',
  'retrieval:evidence',
  'protocol:list',
  'protocol:get',
  'protocol:versions',
  'protocol:document',
  'campaign:list',
  'campaign:get',
  'campaign:preview',
  'job:list',
  'job:get',
  'team:status',
  'release:list',
  'release:get',
  'release:card',
  'release:diff',
  'release:preview',
  'pipeline:defaults',
  'pipeline:funnel',
  'pipeline:failures',
  'pipeline:prices',
  'pipeline:prompts',
  'pipeline:prompt-history',
  'pipeline:status',
  'pipeline:trace',
  'evaluation:list',
  'evaluation:get',
  'evaluation:items',
  'evaluation:item',
  'evaluation:compare',
  'evaluation:table',
  'evaluation:methods',
  'evaluation:prompts',
  'evaluation:prompt-history',
  'failure:list',
  'failure:item',
  'failure-tag:list',
  'failure-tag:counts',
  'instance-flag:list',
  'judge-validation:get',
  'release:zip',
];

/** Reads that name a file on the server: never over the network (checkPaths), and not audited. */
const LOCAL_READS: readonly string[] = ['release:verify', 'evaluation:score'];

export const ACCESS: Readonly<Record<string, Access>> = {
  ...Object.fromEntries(READS_FOR_ALL_ROLES.map((name) => [name, 'everyone' as const])),
  'team:status': 'everyone',
  // Others' judgments: maintainers and viewers; annotators only for campaigns that are not blind.
  'agreement:get': 'readers',
  'agreement:disagreements': 'readers',
  'judging:queue': 'annotators',
  'judging:item': 'annotators',
  'judging:decide': 'annotators',
  'judging:undo': 'annotators',
  'judging:skip': 'annotators',
};

/** Operations that only read: everything else is a write and goes into the audit trail. */
export function isRead(name: string): boolean {
  return READS_FOR_ALL_ROLES.includes(name) || LOCAL_READS.includes(name) || name === 'agreement:get' || name === 'agreement:disagreements' || name === 'judging:queue' || name === 'judging:item' || name === 'account:list' || name === 'account:audit';
}

export function accessOf(name: string): Access {
  return ACCESS[name] ?? 'maintainers';
}

export function roleMayCall(role: AccountRole, name: string): boolean {
  const access = accessOf(name);
  if (access === 'everyone') return true;
  // Annotators are held to campaigns that are not blind by checkInput.
  if (access === 'readers') return true;
  if (access === 'annotators') return role === 'annotator' || role === 'maintainer';
  return role === 'maintainer';
}

/** Input fields that name a file or folder on the server. */
const PATH_KEY = /^(path|configPath|rejectsFile|questions|out|dir|file|pack|folder|directory)$/;

/** Fields that may name a file a network caller sent through the upload endpoint (read, never written). */
const UPLOAD_INPUTS = new Set(['dataset:import.path', 'corpus:import.path', 'judgment:import.path', 'pack:import.path', 'retrieval:evaluate.questions', 'pipeline:start.configPath', 'evaluation:score.predictions', 'evaluation:start.configPath']);

/** The field names each operation declares with `serverPath()`, read from its schema once. */
const declaredPathKeys = new Map<string, Set<string>>();
function pathKeysOf(name: string): Set<string> {
  let keys = declaredPathKeys.get(name);
  if (!keys) {
    keys = new Set(isOperation(name) ? serverPathFields(operations[name].input).map((field) => field.split('.').at(-1)!.replace(/\[\]$/, '')) : []);
    declaredPathKeys.set(name, keys);
  }
  return keys;
}

/**
 * Refuses, for a network caller, any input naming a server path other than a file it uploaded: a
 * field its operation declares with `serverPath()`, or (belt and braces) one named like a path.
 */
export function checkPaths(name: string, input: unknown, uploadDir: string): void {
  const declared = pathKeysOf(name);
  const walk = (value: unknown, where: string[]): void => {
    if (Array.isArray(value)) return value.forEach((v, i) => walk(v, [...where, String(i)]));
    if (typeof value !== 'object' || value === null) return;
    for (const [key, inner] of Object.entries(value)) {
      const at = [...where, key];
      if ((declared.has(key) || PATH_KEY.test(key)) && inner !== undefined && inner !== null) {
        const field = `${name}.${at.join('.')}`;
        const root = path.resolve(uploadDir);
        const target = typeof inner === 'string' ? path.resolve(inner) : '';
        if (UPLOAD_INPUTS.has(field) && target.startsWith(root + path.sep)) continue;
        throw new AppError(
          'forbidden',
          `${name}: "${at.join('.')}" names a file on the server, which network callers may not do. Send files with the upload button (POST /api/upload) and run exports from the desktop app or the awb CLI on the server.`,
        );
      }
      walk(inner, at);
    }
  };
  walk(input, []);
}

function sessionOf(input: unknown): { campaignId: number; annotator: string } | { pack: string } | undefined {
  return (input as { session?: { campaignId: number; annotator: string } | { pack: string } }).session;
}

/** Checks that depend on the input: whose judging session, which campaign. */
export function checkInput(db: WritableDB, caller: NonNullable<CallContext['account']>, name: string, input: unknown): void {
  if (caller.role === 'maintainer') return;
  if (name.startsWith('judging:')) {
    const session = sessionOf(input);
    if (!session || 'pack' in session) throw new AppError('forbidden', 'Over the network, judging happens in a campaign of the server.');
    if (session.annotator !== caller.name) {
      throw new AppError('forbidden', `${caller.name} may judge only as ${caller.name}, not as ${session.annotator}.`);
    }
  }
  if (name === 'agreement:get' || name === 'agreement:disagreements') {
    const campaignId = (input as { campaignId?: number }).campaignId;
    const campaign = campaignId === undefined ? undefined : getCampaign(db, campaignId);
    if (caller.role === 'annotator' && (!campaign || campaign.blind === 1)) {
      throw new AppError('forbidden', 'This campaign is blind: annotators do not see other people\'s judgments.');
    }
  }
}

/** What a network caller sees: no server paths; an annotator sees the campaigns they are in, and of each only their own share. */
export function filterOutput(db: WritableDB, caller: NonNullable<CallContext['account']>, name: string, value: unknown): unknown {
  // Where the server keeps its files is none of the network's business.
  if (name === 'app:info') return { ...(value as Record<string, unknown>), databasePath: path.basename(String((value as { databasePath: string }).databasePath)), pack: null };
  if (name === 'team:status' && caller.role !== 'maintainer') {
    const status = value as TeamStatus;
    return { ...status, sync: { ...status.sync, store: null, device: null } };
  }
  if (caller.role !== 'annotator') return value;
  const annotatorId = findAnnotatorId(db, caller.name);
  const mine = (campaignId: number) => annotatorId !== undefined && annotatorQueue(db, campaignId, annotatorId).length > 0;
  if (name === 'campaign:list') return (value as CampaignSummary[]).filter((c) => mine(c.id));
  if (name === 'campaign:get') {
    const view = value as CampaignView;
    if (!mine(view.id)) throw new AppError('forbidden', `${caller.name} has no items in campaign ${view.id}.`);
    return {
      ...view,
      annotators: view.annotators.filter((a) => a === caller.name),
      assignments: view.assignments.filter((a) => a.annotator === caller.name),
      progress: view.progress.filter((p) => p.annotator === caller.name),
    };
  }
  return value;
}

const SECRET_KEY = /^(password|token|secret|apiKey)$/i;

/** The input as the audit trail keeps it: secrets out, paths cut to their file name, long text cut. */
export function auditSummary(input: unknown): unknown {
  const clean = (value: unknown, key = ''): unknown => {
    if (SECRET_KEY.test(key)) return '[hidden]';
    if (typeof value === 'string') {
      if (PATH_KEY.test(key)) return path.basename(value);
      return value.length > 200 ? `${value.slice(0, 200)}…` : value;
    }
    if (Array.isArray(value)) return value.length > 50 ? [...value.slice(0, 50).map((v) => clean(v)), `… ${value.length - 50} more`] : value.map((v) => clean(v));
    if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, clean(v, k)]));
    return value;
  };
  return clean(input) ?? {};
}

export function audit(db: WritableDB, context: CallContext, name: OperationName | string, input: unknown, ok: boolean, at = new Date()): void {
  insertAudit(db, {
    at: at.toISOString(),
    account: context.account?.name ?? 'owner',
    role: context.account?.role ?? 'owner',
    operation: name,
    summary: JSON.stringify(auditSummary(input)),
    ok: ok ? 1 : 0,
  });
}

/** Wraps every handler that writes so that each call is audited, whatever client made it. */
export function auditWrites(db: WritableDB, handlers: Handlers): Handlers {
  const wrapped: Record<string, unknown> = { ...handlers };
  for (const name of Object.keys(handlers) as OperationName[]) {
    if (isRead(name)) continue;
    const inner = handlers[name] as (input: unknown, context?: CallContext) => unknown;
    wrapped[name] = async (input: unknown, context?: CallContext) => {
      const who: CallContext = context ?? { account: null, network: false };
      try {
        const value = await inner(input, context);
        audit(db, who, name, input, true);
        return value;
      } catch (error) {
        audit(db, who, name, input, false);
        throw error;
      }
    };
  }
  return wrapped as Handlers;
}
