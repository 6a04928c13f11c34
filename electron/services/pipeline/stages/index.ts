import type { PipelineStage } from '../../../../shared/domain';
import { answer, merge } from './answer';
import { collide, filter } from './check';
import type { InstanceItem, Outcome, QuestionItem, StageContext } from './context';
import { detect } from './detect';
import { clarify, decompose } from './interpret';
import { retrieve } from './retrieve';
import { shorten } from './shorten';

/**
 * The nine stages of MARCH's construction in the order they run: detection makes instances from
 * base questions; every later stage takes an instance one step further.
 */
const INSTANCE_STAGES = { clarify, decompose, retrieve, answer, merge, shorten, collide, filter } satisfies Record<
  Exclude<PipelineStage, 'detect'>,
  (ctx: StageContext, inst: InstanceItem) => Outcome | Promise<Outcome>
>;

export async function runStage(ctx: StageContext, stage: PipelineStage, item: QuestionItem | InstanceItem): Promise<Outcome> {
  return stage === 'detect' ? detect(ctx, item as QuestionItem) : INSTANCE_STAGES[stage](ctx, item as InstanceItem);
}
