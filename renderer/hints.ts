import type { ErrorHint } from '../shared/api';

/**
 * An error's hint in the UI's own words: the field or button that does it. The services only say
 * what can be done (shared/api's ErrorHint); the CLI words the same hints with its flags.
 */

/** Input fields as the forms label them. */
const FIELDS: Record<string, string> = {
  force: 'Publish anyway because',
  dataset: 'Dataset',
  model: 'Model',
  dimensions: 'Dimensions',
  annotator: 'Annotator',
  buildCorpus: 'Build the corpus from the questions',
};

/** Where the UI runs an operation a hint names. */
const PLACES: Record<string, string> = {
  'corpus:embed': 'Embed the corpus first (Search, “Embed offline”).',
  'sync:configure': 'Connect this database to a shared store first (Team, Sync).',
};

export function uiHint(hint: ErrorHint): string {
  const field = (name: string) => `“${FIELDS[name] ?? name}”`;
  switch (hint.kind) {
    case 'force':
      return `Write a reason under ${field(hint.field)} to go ahead anyway: it is recorded.`;
    case 'field':
      return `Fill in or change ${field(hint.field)}.`;
    case 'operation':
      return PLACES[hint.operation] ?? `Run ${hint.operation} first.`;
  }
}
