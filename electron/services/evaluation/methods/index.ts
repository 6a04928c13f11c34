import type { EvalMethod } from '../../../../shared/eval/methods';
import type { MethodOutput } from '../../../../shared/eval/types';
import type { ItemRun } from '../context';
import { adf } from './adf';
import { cot, noRetrieval, rag, react } from './baselines';
import { clarion } from './clarion';
import { condAmbigQA } from './condqa';
import { diva } from './diva';

/**
 * The QA methods, each a function of one item. They call the model only through `run.ask` and
 * search only through `run.search`, so every call and search is cached, accounted and traced.
 * What each does, step by step, and where it departs from its paper: docs/evaluation-methods.md.
 */
export function runMethod(method: EvalMethod, run: ItemRun): Promise<MethodOutput> {
  switch (method) {
    case 'no-retrieval':
      return noRetrieval(run);
    case 'cot':
      return cot(run);
    case 'naive-rag':
      return rag(run, false);
    case 'cot-rag':
      return rag(run, true);
    case 'diva':
      return diva(run);
    case 'react':
      return react(run);
    case 'clarion':
      return clarion(run, 'full');
    case 'clarion-no-clarification':
      return clarion(run, 'no-clarification');
    case 'clarion-no-planning':
      return clarion(run, 'no-planning');
    case 'adf':
      return adf(run);
    case 'condqa':
      return condAmbigQA(run, 'conditions');
    case 'condqa-no-condition':
      return condAmbigQA(run, 'no-condition');
    case 'condqa-oracle':
      return condAmbigQA(run, 'oracle');
    case 'condqa-closed-book':
      return condAmbigQA(run, 'closed-book');
    case 'condqa-closed-book-conditions':
      return condAmbigQA(run, 'closed-book-conditions');
    case 'condqa-closed-book-oracle':
      return condAmbigQA(run, 'closed-book-oracle');
  }
}
