import path from 'node:path';
import type { Handlers } from '../../../shared/api';
import { readConstructionConfig } from '../pipeline/construction-config';
import type { Workbench } from '../workbench';
import { runLabelling } from './label-stage';
import { domainList, labelView, setAnswerability, setClarification, setDomain } from './labels';

type LabelOperation = 'label:start' | 'label:get' | 'answerability:set' | 'domain:set' | 'domain:list' | 'clarification:set';

/** Answerability (URASys) and topics (MARCH Table 7): the labelling stage, labels by hand, clarification turns. */
export function labelHandlers(workbench: Workbench): Pick<Handlers, LabelOperation> {
  const db = workbench.db;
  /** A label set by hand shows on every screen that shows it (instance, base question, lists). */
  const changed = <T>(view: T): T => {
    workbench.events.emit('data:changed', { reason: 'label' });
    return view;
  };
  return {
    'label:start': (request) => {
      const config = readConstructionConfig(request.config, request.configPath === undefined ? undefined : path.resolve(request.configPath));
      return workbench.writerJob('label', `Labelling: ${request.kind}`, 'questions', (writer, control) =>
        runLabelling(writer, { ...request, config }, { signal: control.signal, keys: workbench.apiKeys, onProgress: (done, total, detail) => control.progress(done, total, detail) }),
      );
    },
    'label:get': (request) => labelView(db, request),
    'answerability:set': (request) => changed(setAnswerability(db, request)),
    'domain:set': (request) => changed(setDomain(db, request)),
    'domain:list': () => domainList(),
    'clarification:set': (request) => setClarification(db, request),
  };
}
