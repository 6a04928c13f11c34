import type { AccountRole } from './team';

/**
 * Who may call what over the network in team mode: a table by operation name (an operation not
 * named here is for maintainers only, so a new operation is closed until someone opens it). The
 * server's gate enforces it and the renderer reads the same table to hide or disable what the
 * signed-in role may not do. What a caller may name is checked in electron/services/team/reach.ts,
 * what they see of blind campaigns in blind.ts, and every call's record is kept by audit.ts.
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
  'pipeline:show',
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
  'failure:reasons',
  'failure-tag:list',
  'failure-tag:counts',
  'instance-flag:list',
  'judge-validation:get',
  'release:zip',
  'round:list',
  'round:funnel',
  'label:get',
  'domain:list',
  'qa-index:get',
  'ask-first:get',
  'ask-first:list',
];

/** Reads that name a file on the server: never over the network (checkPaths), and not audited. */
const LOCAL_READS: readonly string[] = ['release:verify', 'evaluation:score'];

export const ACCESS: Readonly<Record<string, Access>> = {
  ...Object.fromEntries(READS_FOR_ALL_ROLES.map((name) => [name, 'everyone' as const])),
  'team:status': 'everyone',
  // Others' judgments: maintainers; viewers and annotators only of campaigns that are not blind (blind.ts).
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
  // Held to campaigns that are not blind by checkInput (blind.ts).
  if (access === 'readers') return true;
  if (access === 'annotators') return role === 'annotator' || role === 'maintainer';
  return role === 'maintainer';
}
