import type { EvalSchemaName } from './schemas';

/** What every evaluation prompt has: a system and a user message, and the answer shape it asks for. */
export interface EvalPromptSpec {
  system: string;
  user: string;
  schema: EvalSchemaName;
}

export const JSON_ONLY = 'Reply with one JSON object only: no prose around it, no code fences.';
