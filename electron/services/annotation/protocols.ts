import { findProtocol, getProtocol, insertProtocolVersion, listProtocols } from '../../../db/queries/protocols';
import { transaction, type WritableDB } from '../../../db/sql';
import { AppError } from '../../../shared/api';
import { BUILT_IN_PROTOCOLS, ProtocolDocument, type Protocol } from '../../../shared/protocols';

export const PROTOCOL_FORMAT = 'awb-protocol/1';

/** Adds the built-in protocols to a database that lacks them (cheap when present). */
export function ensureBuiltInProtocols(db: WritableDB): void {
  transaction(db, () => {
    for (const document of BUILT_IN_PROTOCOLS) if (!findProtocol(db, document.key)) insertProtocolVersion(db, document, true);
  });
}

export function allProtocols(db: WritableDB): Protocol[] {
  ensureBuiltInProtocols(db);
  return listProtocols(db);
}

/** `march-validation`, `march-validation@2`, or a numeric id. */
export function resolveProtocol(db: WritableDB, reference: string | number): Protocol {
  ensureBuiltInProtocols(db);
  const protocol = typeof reference === 'number' || /^\d+$/.test(reference) ? getProtocol(db, Number(reference)) : findProtocol(db, reference);
  if (!protocol) throw new AppError('not_found', `No protocol "${reference}". Built in: ${BUILT_IN_PROTOCOLS.map((p) => p.key).join(', ')}.`);
  return protocol;
}

/**
 * Saves a protocol: a new key starts at version 1, a known key gets its next version (campaigns
 * keep pointing at the version they were made with). Built-in protocols are not changed: save an
 * edited copy under a key of your own.
 */
export function saveProtocol(db: WritableDB, input: unknown): Protocol {
  ensureBuiltInProtocols(db);
  const parsed = ProtocolDocument.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new AppError('invalid_input', `Protocol ${issue.path.join('.') || ''}: ${issue.message}`.replace(' : ', ': '));
  }
  if (BUILT_IN_PROTOCOLS.some((p) => p.key === parsed.data.key)) {
    throw new AppError('conflict', `"${parsed.data.key}" is built in and cannot be changed; save your version under another key.`);
  }
  return transaction(db, () => insertProtocolVersion(db, parsed.data));
}

/** The JSON a protocol is exported as (and imported from). */
export function protocolDocument(protocol: Protocol): ProtocolDocument & { format: string; version: number } {
  return {
    format: PROTOCOL_FORMAT,
    key: protocol.key,
    version: protocol.version,
    name: protocol.name,
    description: protocol.description,
    guidelines: protocol.guidelines,
    criteria: protocol.criteria,
  };
}

export function importProtocol(db: WritableDB, json: unknown): Protocol {
  if (typeof json !== 'object' || json === null) throw new AppError('invalid_input', 'A protocol file holds one JSON object.');
  const { format, version: _version, ...document } = json as Record<string, unknown>;
  if (format !== undefined && format !== PROTOCOL_FORMAT) throw new AppError('invalid_input', `Not a protocol file (format ${String(format)}).`);
  return saveProtocol(db, document);
}
