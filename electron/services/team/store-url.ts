import { AppError } from '../../../shared/api';

/**
 * The shared store's address. Its password never reaches the SQLite file or a log: what is kept
 * and shown is the URL without it; the password comes with the URL given at the command line, or
 * from the environment (`AWB_POSTGRES_URL`, or libpq's own `PGPASSWORD`, which `pg` reads).
 */

export function redactStoreUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error('The PostgreSQL address is not a URL: expected postgres://user@host:port/database');
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
    throw new Error(`The PostgreSQL address must start with postgres:// (not ${parsed.protocol}//)`);
  }
  parsed.password = '';
  for (const key of [...parsed.searchParams.keys()]) if (/pass/i.test(key)) parsed.searchParams.delete(key);
  return parsed.toString();
}

/** The URL to connect with: one given now, the environment's, or the kept one (password from PGPASSWORD). */
export function connectionUrl(given: string | undefined, kept: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  const url = given ?? env.AWB_POSTGRES_URL ?? kept;
  if (!url) throw new AppError('invalid_input', 'No shared store is set up: connect this database to one first.', undefined, { kind: 'operation', operation: 'sync:configure' });
  redactStoreUrl(url);
  return url;
}

/** Scrubs anything that looks like a password out of a driver's message. */
export function scrubSecrets(message: string): string {
  return message.replace(/(postgres(?:ql)?:\/\/[^:@/\s]+):[^@\s]+@/g, '$1:***@');
}
