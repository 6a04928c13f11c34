import fs from 'node:fs';
import path from 'node:path';
import { addItemTag, applyFlagRule, applyItemRule, itemTagHistory, removeItemTag, rowToItemTagView, runTagRows, tagCounts } from '../../../db/queries/eval-item-tags';
import { failedItemReasons, getEvalItem, itemsForMetricRules, itemsForTextRules } from '../../../db/queries/eval-items';
import { countFailures, failurePageIds, failureRows, itemsByKey, neighbourItems, rowToFailureRow, type FailureFilter, type FailureRowDb } from '../../../db/queries/eval-items-failures';
import { getEvalRun, rowToFailureRunInfo } from '../../../db/queries/eval-runs';
import { findFailureTag, insertFailureTag, listFailureTags, rowToFailureTagView, type FailureTagRow } from '../../../db/queries/failure-tags';
import { insertInstanceFlag, instanceFlags, resolveInstanceFlags, rowToInstanceFlagView } from '../../../db/queries/instance-flags';
import { getInstance } from '../../../db/queries/instances';
import { transaction, type WritableDB } from '../../../db/sql';
import { toCsv } from '../../../shared/tables';
import { AppError, type CallContext, type FailureOperation, type FailureTagView, type Handlers } from '../../../shared/api';
import { answerCoverage, appendixGTags, groupFailureReasons, isFormatFailure, isRefusal, retrievalOverlap } from '../../../shared/failures';
import { evalItemDetail } from '../evaluation/items';
import { finishedRun, judgeValidation, startJudgeCampaign } from './judge-validation';
import type { Workbench } from '../workbench';

/** The rules behind the tags the app suggests, in words. */
const RULES: Record<string, string> = {
  collapsed: 'the prediction commits to at most one interpretation (its distinct answers, or what the reader finds for each clarified question) while the gold has several (MARCH appendix G.1)',
  'detection-miss': "the method's planner recorded the question as unambiguous while the gold lists several interpretations",
  'hop-inconsistency': 'the method recorded a failed hop-consistency check that recovery did not fix',
  'needs-clarification': 'the method recorded an interpretation blocked by a missing hop entity',
  'retrieval-miss': 'the method searched and none of the gold evidence passages came back',
  'refusal-or-format-error': 'the item failed because an output could not be read, or the answer declines to answer',
};

const tagView = (t: FailureTagRow): FailureTagView => rowToFailureTagView(t, RULES[t.key] ?? null);

/** Who acts: the signed-in account in team mode, else the name given. */
function actor(who: string, context: CallContext | undefined): string {
  return context?.account?.name ?? who;
}

function requireTag(db: WritableDB, key: string): FailureTagRow {
  const tag = findFailureTag(db, key);
  if (!tag) throw new AppError('not_found', `No failure tag "${key}"; add it to the taxonomy first (failure-tag:create).`);
  return tag;
}

function requireItem(db: WritableDB, id: number) {
  const item = getEvalItem(db, id);
  if (!item) throw new AppError('not_found', `No evaluation item ${id}`);
  return item;
}

/** Runs the rules over a run's items; returns how many tags each rule added. */
export function suggestTags(db: WritableDB, runId: number): Record<string, number> {
  if (!getEvalRun(db, runId)) throw new AppError('not_found', `No evaluation run ${runId}`);
  return transaction(db, () => {
    const added: Record<string, number> = {};
    added.collapsed = applyFlagRule(db, runId, requireTag(db, 'collapsed').id, 'collapsed', 'rule:collapsed');
    added['retrieval-miss'] = applyFlagRule(db, runId, requireTag(db, 'retrieval-miss').id, 'retrieval_miss', 'rule:retrieval-miss');
    const notes = new Map<number, string>();
    for (const item of itemsForTextRules(db, runId)) {
      if (item.status === 'failed' && isFormatFailure(item.error)) notes.set(item.id, `format: ${item.error}`.slice(0, 300));
      else if (item.status === 'done' && isRefusal(item.long_answer)) notes.set(item.id, 'refusal: the answer declines to answer');
    }
    added['refusal-or-format-error'] = applyItemRule(db, [...notes.keys()], requireTag(db, 'refusal-or-format-error').id, 'rule:refusal-or-format-error', (id) => notes.get(id)!);
    Object.assign(added, suggestAppendixGTags(db, runId));
    return added;
  });
}

/** The appendix-G tags that rules can suggest from what a method recorded on its items. */
function suggestAppendixGTags(db: WritableDB, runId: number): Record<string, number> {
  const byTag = new Map<string, Map<number, string>>([['detection-miss', new Map()], ['hop-inconsistency', new Map()], ['needs-clarification', new Map()]]);
  for (const item of itemsForMetricRules(db, runId)) {
    for (const { tag, note } of appendixGTags(JSON.parse(item.metrics) as Record<string, unknown>, item.gold_interpretations)) byTag.get(tag)!.set(item.id, note);
  }
  const added: Record<string, number> = {};
  for (const [tag, notes] of byTag) {
    const found = findFailureTag(db, tag);
    // A database whose taxonomy lacks the tag (a person removed it) gets no suggestion for it.
    added[tag] = found ? applyItemRule(db, [...notes.keys()], found.id, `rule:${tag}`, (id) => notes.get(id)!) : 0;
  }
  return added;
}

export function failureHandlers(workbench: Workbench): Pick<Handlers, FailureOperation> {
  const { db, events } = workbench;
  const changed = (reason: string) => events.emit('data:changed', { reason });
  return {
    'failure:list': ({ run, sort, direction, offset, limit, tag, versus, thresholds, count, ...rest }) => {
      const row = getEvalRun(db, run);
      if (!row) throw new AppError('not_found', `No evaluation run ${run}`);
      let versusRow = null;
      if (versus) {
        versusRow = getEvalRun(db, versus.run);
        if (!versusRow) throw new AppError('not_found', `No evaluation run ${versus.run}`);
        if (versus.run === run) throw new AppError('invalid_input', 'Compare two different runs.');
      }
      const filter: FailureFilter = {
        ...rest,
        thresholds,
        ...(tag ? { tagId: requireTag(db, tag).id } : {}),
        ...(versus ? { versus } : {}),
      };
      const rows = failureRows(db, failurePageIds(db, run, filter, sort, direction, limit, offset));
      const others = versus ? new Map(itemsByKey(db, versus.run, rows.map((r) => r.key)).map((o) => [o.key, o])) : new Map<string, FailureRowDb>();
      return {
        run: rowToFailureRunInfo(row),
        versus: versusRow ? rowToFailureRunInfo(versusRow) : null,
        total: count ? countFailures(db, run, filter) : null,
        rows: rows.map((r) => rowToFailureRow(r, others.get(r.key))),
      };
    },
    'failure:reasons': ({ run, limit }) => {
      const row = getEvalRun(db, run);
      if (!row) throw new AppError('not_found', `No evaluation run ${run}`);
      const groups = groupFailureReasons(failedItemReasons(db, run));
      return { run: rowToFailureRunInfo(row), failed: groups.reduce((n, g) => n + g.count, 0), groups: groups.slice(0, limit), more: Math.max(0, groups.length - limit) };
    },
    'failure:item': ({ id }) => {
      const item = evalItemDetail(db, id);
      const run = getEvalRun(db, item.runId)!;
      const { previous, next } = neighbourItems(db, item.runId, item.position);
      return {
        item,
        run: rowToFailureRunInfo(run),
        coverage: answerCoverage(item.longAnswer, item.gold.interpretations, { failed: item.status === 'failed' }),
        retrieval: retrievalOverlap(item.gold.interpretations, item.retrieved, item.interpretations),
        tags: itemTagHistory(db, id).map(rowToItemTagView),
        flags: item.instanceId !== null ? instanceFlags(db, item.instanceId).map(rowToInstanceFlagView) : [],
        previous,
        next,
      };
    },
    'failure-tag:list': () => listFailureTags(db).map(tagView),
    'failure-tag:create': ({ key, label, description, who }, context) => {
      if (findFailureTag(db, key)) throw new AppError('conflict', `The taxonomy already has a tag "${key}".`);
      insertFailureTag(db, { key, label, description, who: actor(who, context) });
      changed('failure-tags');
      return tagView(requireTag(db, key));
    },
    'failure-tag:add': ({ item, tag, who, note }, context) => {
      requireItem(db, item);
      addItemTag(db, item, requireTag(db, tag).id, 'person', actor(who, context), note);
      changed('failure-tags');
      return itemTagHistory(db, item).map(rowToItemTagView);
    },
    'failure-tag:remove': ({ item, tag, who }, context) => {
      requireItem(db, item);
      if (!removeItemTag(db, item, requireTag(db, tag).id, actor(who, context))) throw new AppError('not_found', `Item ${item} does not carry the tag "${tag}".`);
      changed('failure-tags');
      return itemTagHistory(db, item).map(rowToItemTagView);
    },
    'failure-tag:suggest': ({ run }) => {
      const added = suggestTags(db, run);
      if (Object.values(added).some((n) => n > 0)) changed('failure-tags');
      return { added };
    },
    'failure-tag:counts': ({ runs }) =>
      tagCounts(db, runs).map((r) => ({ tag: r.tag, label: r.label, runId: r.run_id, method: r.method, model: r.model, ambiguityType: r.ambiguity_type, n: r.n })),
    'failure-tag:export': ({ run, path: file }) => {
      if (!getEvalRun(db, run)) throw new AppError('not_found', `No evaluation run ${run}`);
      const rows = runTagRows(db, run);
      const header = ['item_id', 'key', 'position', 'ambiguity_type', 'tag', 'source', 'who', 'note', 'created_at', 'removed_by', 'removed_at'];
      const body = rows.map((r) => [String(r.item_id), r.key, String(r.position), r.ambiguity_type, r.tag, r.source, r.who, r.note, r.created_at, r.removed_by ?? '', r.removed_at ?? '']);
      const target = path.resolve(file);
      fs.mkdirSync(path.dirname(target), { recursive: true });
      fs.writeFileSync(target, toCsv({ header, rows: body }));
      return { file: target, rows: rows.length };
    },
    'instance-flag:add': ({ instance, reason, who, item }, context) => {
      if (!getInstance(db, instance)) throw new AppError('not_found', `No instance ${instance}`);
      if (item !== undefined) {
        const row = requireItem(db, item);
        if (row.instance_id !== instance) throw new AppError('invalid_input', `Evaluation item ${item} is about instance ${row.instance_id ?? '(none)'}, not ${instance}.`);
      }
      const id = insertInstanceFlag(db, { instanceId: instance, reason, who: actor(who, context), evalItemId: item ?? null });
      changed('instance-flags');
      return rowToInstanceFlagView(instanceFlags(db, instance).find((f) => f.id === id)!);
    },
    'instance-flag:list': ({ instance }) => instanceFlags(db, instance).map(rowToInstanceFlagView),
    'instance-flag:resolve': ({ instance, who }, context) => {
      const resolved = resolveInstanceFlags(db, instance, actor(who, context));
      if (resolved) changed('instance-flags');
      return { resolved };
    },
    'judge-validation:start': (request) => {
      finishedRun(db, request.run);
      const campaign = startJudgeCampaign(db, request);
      changed('campaigns');
      return campaign;
    },
    'judge-validation:get': ({ run, campaign, resamples, seed }) => judgeValidation(db, run, campaign, { resamples, seed }),
  };
}
