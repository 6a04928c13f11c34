import type { Migration } from '../migrate';

/**
 * Team mode: accounts with a role, their tokens (only an argon2id hash is kept), sign-in
 * sessions (only a SHA-256 of the random id is kept), the audit trail of every write made
 * through the server, and the state of sync with a shared PostgreSQL store (the store's address
 * without its password, and per campaign how far each direction has gone).
 */
export const team: Migration = {
  version: 9,
  name: 'team',
  up(db) {
    db.exec(`
      CREATE TABLE accounts (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL UNIQUE CHECK (length(name) BETWEEN 1 AND 100),
        role TEXT NOT NULL CHECK (role IN ('maintainer', 'annotator', 'viewer')),
        password_hash TEXT,
        disabled INTEGER NOT NULL DEFAULT 0 CHECK (disabled IN (0, 1)),
        created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
      ) STRICT;

      CREATE TABLE account_tokens (
        id INTEGER PRIMARY KEY,
        account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        label TEXT NOT NULL DEFAULT '',
        hash TEXT NOT NULL,
        created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
        expires_at TEXT,
        revoked_at TEXT,
        last_used_at TEXT
      ) STRICT;
      CREATE INDEX account_tokens_account ON account_tokens (account_id);

      CREATE TABLE account_sessions (
        id_hash TEXT PRIMARY KEY,
        account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        token_id INTEGER REFERENCES account_tokens(id) ON DELETE CASCADE,
        created_at TEXT NOT NULL,
        expires_at TEXT NOT NULL
      ) STRICT, WITHOUT ROWID;

      CREATE TABLE audit_log (
        id INTEGER PRIMARY KEY,
        at TEXT NOT NULL,
        account TEXT NOT NULL,
        role TEXT NOT NULL,
        operation TEXT NOT NULL,
        summary TEXT NOT NULL CHECK (json_valid(summary)),
        ok INTEGER NOT NULL CHECK (ok IN (0, 1))
      ) STRICT;
      CREATE INDEX audit_log_account ON audit_log (account, id);

      CREATE TABLE team_sync (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        store TEXT NOT NULL,
        device TEXT NOT NULL,
        annotator TEXT,
        role TEXT NOT NULL CHECK (role IN ('maintainer', 'annotator')),
        last_sync_at TEXT,
        last_error TEXT,
        last_report TEXT CHECK (last_report IS NULL OR json_valid(last_report))
      ) STRICT;

      CREATE TABLE team_campaign_sync (
        campaign_uid TEXT PRIMARY KEY,
        pushed_through INTEGER NOT NULL DEFAULT 0,
        pulled_through INTEGER NOT NULL DEFAULT 0
      ) STRICT, WITHOUT ROWID;
    `);
  },
};
