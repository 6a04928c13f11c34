import type { ErrorHint } from '../../shared/api';

/**
 * An error's hint in the CLI's own words: the flag that sets a field, the command that runs an
 * operation. The services only say what can be done (shared/api's ErrorHint); the UI words the
 * same hints with its fields and buttons.
 */

/** Input fields whose flag is not the field's name in kebab case. */
const FLAGS: Record<string, string> = { rejectsFile: '--rejects', baseURL: '--base-url', maxRecordMb: '--max-record-mb' };

/** The commands that run an operation a hint names; any other runs through `awb call`. */
const COMMANDS: Record<string, string> = {
  'corpus:embed': 'awb corpus embed',
  'sync:configure': 'awb team init --postgres URL',
};

export function flagOf(field: string): string {
  return FLAGS[field] ?? `--${field.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
}

function quoted(value: string | number | boolean): string {
  const text = String(value);
  return /^[\w.:/-]+$/.test(text) ? text : JSON.stringify(text);
}

function commandFor(operation: string, input: Record<string, string | number | boolean> = {}): string {
  const command = COMMANDS[operation];
  if (!command) return `awb call ${operation} '${JSON.stringify(input)}'`;
  const flags = Object.entries(input).map(([field, value]) => (value === true ? flagOf(field) : `${flagOf(field)} ${quoted(value)}`));
  return [command, ...flags].join(' ');
}

export function cliHint(hint: ErrorHint): string {
  switch (hint.kind) {
    case 'force':
      return `Add ${flagOf(hint.field)} REASON to go ahead anyway (the reason is recorded).`;
    case 'field':
      return `Give ${flagOf(hint.field)}.`;
    case 'operation':
      return `Run \`${commandFor(hint.operation, hint.input)}\` first.`;
  }
}
