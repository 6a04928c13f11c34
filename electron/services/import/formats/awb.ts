import { AwbRecord } from '../../../../shared/awb-format';
import type { SourceFormat } from './format';

/** The workbench's own format: records go in as they are, under the chosen dataset name. */
export const awb: SourceFormat<AwbRecord> = {
  name: 'awb',
  label: 'Ambiguity Workbench JSONL (awb-instance/1)',
  schema: AwbRecord,
  defaults: { description: '', licence: '', attribution: '', url: '' },
  // A record is one (dataset, base question, type); the same base question may appear once per type.
  sourceId: (record) => [record.dataset.name, record.base_question.source_id, record.instance?.ambiguity_type ?? ''].join('\u0000'),
  toAwb(record, context) {
    if (record.dataset.name === context.dataset.name) return record;
    // Renamed on import: the dataset's own passages move to the corpus of the new name.
    const renamed = { ...record.dataset, name: context.dataset.name };
    return {
      ...record,
      dataset: renamed,
      passages: record.passages.map((p) => (p.corpus === record.dataset.name ? { ...p, corpus: context.corpus } : p)),
      instance: record.instance && renameProvenance(record.instance, record.dataset.name, context.dataset.name),
    };
  },
};

function renameProvenance<T>(value: T, from: string, to: string): T {
  return JSON.parse(JSON.stringify(value), (key, v: unknown) => {
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      const p = v as { source?: unknown; detail?: unknown };
      if (p.source === 'dataset' && p.detail === from) return { ...p, detail: to };
    }
    return v;
  }) as T;
}
