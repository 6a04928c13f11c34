import type { Server } from 'node:http';
import { createHandlers, type Workbench } from '../../electron/services';
import { createHttpServer, listen, type HttpOptions } from '../../electron/transport/http';
import { dispatch, type AccountRole, type IssuedToken } from '../../shared/api';

/** Team mode fixtures: accounts with their first tokens, and team servers on loopback over real HTTP. */

/** Creates each account (a password where one is given) and returns their tokens by name. */
export async function createAccounts(workbench: Workbench, accounts: readonly (readonly [string, AccountRole, string?])[]): Promise<Record<string, string>> {
  const handlers = createHandlers(workbench);
  const tokens: Record<string, string> = {};
  for (const [name, role, password] of accounts) {
    const made = await dispatch(handlers, 'account:create', { name, role, ...(password ? { password } : {}) });
    if (!made.ok) throw new Error(made.error.message);
    tokens[name] = (made.value as IssuedToken).token;
  }
  return tokens;
}

/**
 * Starts a team server on the workbench's database, on a free loopback port, and returns its base
 * URL (no trailing slash); `servers` collects it for the test's cleanup.
 */
export async function serveTeam(workbench: Workbench, servers: Server[], folders: { staticDir: string; uploadDir: string }, options: Partial<HttpOptions> = {}): Promise<string> {
  const server = createHttpServer({
    handlers: createHandlers(workbench),
    events: workbench.events,
    ...folders,
    host: '127.0.0.1',
    port: 0,
    team: { db: workbench.db },
    ...options,
  });
  servers.push(server);
  return (await listen(server, '127.0.0.1', 0)).replace(/\/$/, '');
}

export function closeServers(servers: Server[]): void {
  for (const server of servers) {
    server.closeAllConnections();
    server.close();
  }
}
