import fs from 'node:fs';
import type { Command } from 'commander';
import { ACCOUNT_ROLES, type AccountRole, type SyncReport } from '../../shared/api';
import { CliError, withClient } from './client';
import { choices, integer, printJson, printTable, withCommon, type CommonOptions } from './common';

/**
 * `awb team ...`: accounts, tokens and the audit trail of team mode, and sync with a shared
 * PostgreSQL store. Passwords are read from stdin (never the command line, which other users of
 * the machine can see); the store's password comes with the URL or from PGPASSWORD and is never kept.
 */

function readPassword(): string {
  const text = fs.readFileSync(0, 'utf8').replace(/\r?\n$/, '');
  if (text.length < 12) throw new CliError('invalid_input', 'The password (read from stdin) needs at least 12 characters.');
  return text;
}

function printSync(report: SyncReport): void {
  process.stdout.write(
    `Synced with ${report.store}: pushed ${report.pushed} judgment(s)${report.alreadyOnServer ? ` (${report.alreadyOnServer} were there already)` : ''}, pulled ${report.pulled}` +
      `${report.assignmentsPulled ? ` and ${report.assignmentsPulled} assignment(s)` : ''} over ${report.campaigns} campaign(s) in ${report.seconds} s.\n`,
  );
  for (const warning of report.warnings) process.stdout.write(`note: ${warning}\n`);
}

export function addTeamCommands(program: Command): void {
  const team = program.command('team').description('team mode: accounts, tokens, audit trail, and sync with a shared PostgreSQL store');
  addSyncCommands(team);
  addAccountCommands(team);
  addTokenCommands(team);
  addAuditCommand(team);
}

/** `awb team init`, `sync`, `status` and `remove-campaign`: this database and the shared store. */
function addSyncCommands(team: Command): void {
  withCommon(
    team
      .command('init')
      .description('set this database up to sync with a shared PostgreSQL store, and sync once')
      .requiredOption('--postgres <url>', 'postgres://user@host:port/database (the password from the URL or PGPASSWORD is never kept)')
      .option(`--role <role>`, choices(['maintainer', 'annotator']), 'annotator')
      .option('--annotator <name>', 'the annotator this desktop belongs to (annotator role)'),
  ).action((options: CommonOptions & { postgres: string; role: 'maintainer' | 'annotator'; annotator?: string }) =>
    withClient(options, async (client) => {
      await client.call('sync:configure', { postgres: options.postgres, role: options.role, ...(options.annotator ? { annotator: options.annotator } : {}) });
      process.stderr.write(`Syncing…\n`);
      const report = await client.call('sync:run', { postgres: options.postgres });
      if (options.json) printJson(report);
      else printSync(report);
    }),
  );

  withCommon(
    team
      .command('sync')
      .description('push the judgments made here and pull assignments and others\' judgments (safe to repeat, safe to interrupt)')
      .option('--postgres <url>', 'the store for this run (default: the one given to team init; AWB_POSTGRES_URL overrides)')
      .option('--every <seconds>', 'keep syncing at this interval (e.g. beside awb serve on the same database) until stopped', integer),
  ).action((options: CommonOptions & { postgres?: string; every?: number }) =>
    withClient(options, async (client) => {
      const input = options.postgres ? { postgres: options.postgres } : {};
      if (options.every === undefined) {
        process.stderr.write(`Syncing…\n`);
        const report = await client.call('sync:run', input);
        if (options.json) printJson(report);
        else printSync(report);
        return;
      }
      if (!(options.every >= 5)) throw new CliError('invalid_input', '--every: at least 5 seconds');
      let stop = false;
      process.once('SIGINT', () => (stop = true));
      process.once('SIGTERM', () => (stop = true));
      while (!stop) {
        try {
          const report = await client.call('sync:run', input);
          if (options.json) process.stdout.write(`${JSON.stringify(report)}\n`);
          else printSync(report);
        } catch (error) {
          // The store may be away for a while: say so and try again at the next turn.
          process.stderr.write(`awb: ${(error as Error).message}\n`);
        }
        for (let waited = 0; waited < options.every * 1000 && !stop; waited += 250) await new Promise((r) => setTimeout(r, 250));
      }
    }),
  );

  withCommon(team.command('status').description('team mode and sync state of this database')).action((options: CommonOptions) =>
    withClient(options, async (client) => {
      const status = await client.call('team:status', {});
      if (options.json) return printJson(status);
      process.stdout.write(`Team mode: ${status.teamMode ? 'on (accounts exist; the server asks everyone to sign in)' : 'off'}\n`);
      const s = status.sync;
      if (!s.configured) process.stdout.write('Sync: not set up (awb team init --postgres URL)\n');
      else
        process.stdout.write(
          `Sync: ${s.store} as ${s.role}${s.annotator ? ` (${s.annotator})` : ''}; last sync ${s.lastSyncAt ?? 'never'}; ${s.pending} judgment(s) to push${s.lastError ? `\nLast error: ${s.lastError}` : ''}\n`,
        );
    }),
  );

  withCommon(team.command('remove-campaign').description('maintainer: delete a campaign from the shared store (desktops keep their copies)').argument('<uid>')).action(
    (uid: string, options: CommonOptions) =>
      withClient(options, async (client) => {
        await client.call('sync:remove-campaign', { uid });
        if (options.json) printJson({ ok: true });
        else process.stdout.write(`Deleted campaign ${uid} from the shared store.\n`);
      }),
  );
}

/** `awb team account`: people, their roles and passwords. */
function addAccountCommands(team: Command): void {
  const account = team.command('account').description('people who may use the server, and their roles');
  withCommon(
    account
      .command('add')
      .description('add a person; prints their first token (shown once)')
      .argument('<name>')
      .requiredOption('--role <role>', choices(ACCOUNT_ROLES))
      .option('--password-stdin', 'also set a password, read from stdin (at least 12 characters)')
      .option('--expires-days <n>', 'the token expires after this many days', integer),
  ).action((name: string, options: CommonOptions & { role: AccountRole; passwordStdin?: boolean; expiresDays?: number }) =>
    withClient(options, async (client) => {
      const issued = await client.call('account:create', {
        name,
        role: options.role,
        ...(options.passwordStdin ? { password: readPassword() } : {}),
        ...(options.expiresDays ? { expiresInDays: options.expiresDays } : {}),
      });
      if (options.json) printJson(issued);
      else {
        process.stdout.write(`Added ${name} (${options.role}). Their token (shown once, keep it safe):\n${issued.token}\n`);
        // Team mode is chosen when a server starts: one already running keeps serving as it was.
        process.stderr.write('A server already running keeps its mode (team or not) until it is started again.\n');
      }
    }),
  );
  withCommon(account.command('list').description('people, roles, tokens and how many writes each made')).action((options: CommonOptions) =>
    withClient(options, async (client) => {
      const accounts = await client.call('account:list', {});
      if (options.json) return printJson(accounts);
      printTable(
        ['name', 'role', 'state', 'tokens', 'writes', 'last write'],
        accounts.map((a) => [a.name, a.role, a.disabled ? 'disabled' : 'active', String(a.tokens.filter((t) => !t.revokedAt).length), String(a.writes), a.lastWriteAt ?? '']),
      );
    }),
  );
  withCommon(account.command('role').description('change a person\'s role').argument('<name>').argument('<role>', choices(ACCOUNT_ROLES))).action(
    (name: string, role: string, options: CommonOptions) =>
      withClient(options, async (client) => {
        if (!(ACCOUNT_ROLES as readonly string[]).includes(role)) throw new CliError('invalid_input', `role: one of ${ACCOUNT_ROLES.join(', ')}`);
        const view = await client.call('account:set-role', { name, role: role as AccountRole });
        if (options.json) printJson(view);
        else process.stdout.write(`${name} is now ${view.role}.\n`);
      }),
  );
  withCommon(account.command('password').description('set a person\'s password, read from stdin').argument('<name>')).action((name: string, options: CommonOptions) =>
    withClient(options, async (client) => {
      await client.call('account:set-password', { name, password: readPassword() });
      if (options.json) printJson({ ok: true });
      else process.stdout.write(`Password of ${name} set.\n`);
    }),
  );
  withCommon(account.command('disable').description('disable an account: its tokens and sessions end at once').argument('<name>')).action((name: string, options: CommonOptions) =>
    withClient(options, async (client) => {
      const view = await client.call('account:disable', { name });
      if (options.json) printJson(view);
      else process.stdout.write(`${name} is disabled.\n`);
    }),
  );
}

/** `awb team token`: per-person tokens. */
function addTokenCommands(team: Command): void {
  const token = team.command('token').description('per-person tokens');
  withCommon(
    token
      .command('issue')
      .description('issue a new token (shown once)')
      .argument('<name>')
      .option('--label <text>', 'what it is for', '')
      .option('--expires-days <n>', 'expires after this many days', integer),
  ).action((name: string, options: CommonOptions & { label: string; expiresDays?: number }) =>
    withClient(options, async (client) => {
      const issued = await client.call('account:issue-token', { name, label: options.label, ...(options.expiresDays ? { expiresInDays: options.expiresDays } : {}) });
      if (options.json) printJson(issued);
      else process.stdout.write(`${issued.token}\n`);
    }),
  );
  withCommon(token.command('revoke').description('revoke a token: it stops working at once').argument('<id>', 'the token\'s number', integer)).action(
    (id: number, options: CommonOptions) =>
      withClient(options, async (client) => {
        await client.call('account:revoke-token', { tokenId: id });
        if (options.json) printJson({ ok: true });
        else process.stdout.write(`Token ${id} revoked.\n`);
      }),
  );
}

/** `awb team audit`: what was changed through the server. */
function addAuditCommand(team: Command): void {
  withCommon(
    team
      .command('audit')
      .description('what was changed through the server, newest first')
      .option('--account <name>', 'only this person')
      .option('--limit <n>', 'how many', integer, 100),
  ).action((options: CommonOptions & { account?: string; limit: number }) =>
    withClient(options, async (client) => {
      const rows = await client.call('account:audit', { ...(options.account ? { name: options.account } : {}), limit: options.limit });
      if (options.json) return printJson(rows);
      printTable(['at', 'who', 'role', 'operation', 'ok', 'input'], rows.map((r) => [r.at, r.account, r.role, r.operation, r.ok ? 'yes' : 'no', JSON.stringify(r.summary).slice(0, 80)]));
    }),
  );
}
