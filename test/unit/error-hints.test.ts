import { describe, expect, it } from 'vitest';
import { cliHint, flagOf } from '../../electron/cli/hints';
import { uiHint } from '../../renderer/hints';
import { AppError, dispatch, type ErrorHint, type Handlers } from '../../shared/api';

/**
 * A service says what can be done about an error as data (a hint), never in one client's words;
 * the CLI names its flags and commands, the UI its fields and buttons.
 */
describe('error hints', () => {
  const force: ErrorHint = { kind: 'force', field: 'force' };
  const field: ErrorHint = { kind: 'field', field: 'maxRecordMb' };
  const embed: ErrorHint = { kind: 'operation', operation: 'corpus:embed', input: { corpus: 'my wiki', provider: 'offline' } };
  const other: ErrorHint = { kind: 'operation', operation: 'release:verify', input: { dir: '/x' } };

  it('crosses dispatch as data beside the message', async () => {
    const handlers = { 'stats:get': () => { throw new AppError('conflict', 'The licence contradicts its sources.', undefined, force); } } as unknown as Handlers;
    const result = await dispatch(handlers, 'stats:get', {});
    expect(result).toEqual({ ok: false, error: { code: 'conflict', message: 'The licence contradicts its sources.', hint: force } });
  });

  it('reads in the CLI as its flags and commands', () => {
    expect(cliHint(force)).toBe('Add --force REASON to go ahead anyway (the reason is recorded).');
    expect(cliHint(field)).toBe('Give --max-record-mb.');
    expect(flagOf('buildCorpus')).toBe('--build-corpus');
    expect(flagOf('baseURL')).toBe('--base-url');
    expect(cliHint(embed)).toBe('Run `awb corpus embed --corpus "my wiki" --provider offline` first.');
    expect(cliHint(other)).toBe(`Run \`awb call release:verify '{"dir":"/x"}'\` first.`);
  });

  it('reads in the UI as its fields and buttons, never a flag', () => {
    for (const hint of [force, field, embed, other]) expect(uiHint(hint)).not.toMatch(/--|awb /);
    expect(uiHint(force)).toBe('Write a reason under “Publish anyway because” to go ahead anyway: it is recorded.');
    expect(uiHint(embed)).toBe('Embed the corpus first (Search, “Embed offline”).');
  });
});
