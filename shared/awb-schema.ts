import { z } from 'zod';
import { AwbRecord } from './awb-format';

/** The JSON Schema (draft 2020-12) of one awb-instance/1 line, as a reader may write it. */
export function awbJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(AwbRecord, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  return {
    $id: 'https://ambiguity-workbench.invalid/schema/awb-instance-1.schema.json',
    title: 'awb-instance/1',
    description:
      'One line of an Ambiguity Workbench JSONL file: a base question, at most one instance of it (its interpretations, evidence, answers, long answers and filter votes, each with provenance), and the passages they refer to by record-local id. Passage references and ranks are also checked by the importer beyond what this schema can say.',
    ...schema,
  };
}
