import type { Protocol, ProtocolDocument } from '../../shared/protocols';
import { all, get, sql, type ReadableDB, type WritableDB } from '../sql';

interface ProtocolRow {
  id: number;
  key: string;
  version: number;
  name: string;
  description: string;
  guidelines: string;
  criteria: string;
  built_in: number;
  created_at: string;
}

function rowToProtocol(row: ProtocolRow): Protocol {
  return {
    id: row.id,
    key: row.key,
    version: row.version,
    name: row.name,
    description: row.description,
    guidelines: row.guidelines,
    criteria: JSON.parse(row.criteria) as Protocol['criteria'],
    builtIn: row.built_in === 1,
    createdAt: row.created_at,
  };
}

type NewProtocolRow = Pick<ProtocolDocument, 'key' | 'name' | 'description' | 'guidelines'> & { version: number; criteria: unknown; builtIn: boolean };

function insertProtocolRow(db: WritableDB, p: NewProtocolRow): ProtocolRow {
  return get<ProtocolRow>(
    db,
    sql`INSERT INTO protocols (key, version, name, description, guidelines, criteria, built_in)
        VALUES (${p.key}, ${p.version}, ${p.name}, ${p.description}, ${p.guidelines}, ${JSON.stringify(p.criteria)}, ${p.builtIn})
        RETURNING *`,
  )!;
}

/** Saves a protocol as the next version of its key (versions are never changed once saved). */
export function insertProtocolVersion(db: WritableDB, document: ProtocolDocument, builtIn = false): Protocol {
  const version = (get<{ v: number | null }>(db, sql`SELECT max(version) AS v FROM protocols WHERE key = ${document.key}`)?.v ?? 0) + 1;
  return rowToProtocol(insertProtocolRow(db, { ...document, version, builtIn }));
}

/** A protocol version received from the shared store, under the version number it has there. */
export function insertProtocolAt(db: WritableDB, p: NewProtocolRow): number {
  return insertProtocolRow(db, p).id;
}

export function getProtocol(db: ReadableDB, id: number): Protocol | undefined {
  const row = get<ProtocolRow>(db, sql`SELECT * FROM protocols WHERE id = ${id}`);
  return row && rowToProtocol(row);
}

/** `key` (latest version) or `key@version`. */
export function findProtocol(db: ReadableDB, reference: string): Protocol | undefined {
  const [key, version] = reference.split('@');
  const row = version
    ? get<ProtocolRow>(db, sql`SELECT * FROM protocols WHERE key = ${key ?? ''} AND version = ${Number(version)}`)
    : get<ProtocolRow>(db, sql`SELECT * FROM protocols WHERE key = ${key ?? ''} ORDER BY version DESC LIMIT 1`);
  return row && rowToProtocol(row);
}

/** The latest version of every protocol. */
export function listProtocols(db: ReadableDB): Protocol[] {
  return all<ProtocolRow>(
    db,
    sql`SELECT * FROM protocols p WHERE version = (SELECT max(version) FROM protocols q WHERE q.key = p.key) ORDER BY built_in DESC, name`,
  ).map(rowToProtocol);
}

export function protocolVersions(db: ReadableDB, key: string): Protocol[] {
  return all<ProtocolRow>(db, sql`SELECT * FROM protocols WHERE key = ${key} ORDER BY version`).map(rowToProtocol);
}
