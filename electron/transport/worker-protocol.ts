import type { EventMessage, Result } from '../../shared/api';

export interface HostOptions {
  databasePath: string;
  version: string;
  seedDemo: boolean;
  /** An offline pack to open at start. */
  pack?: string;
}

export type HostRequest = { type: 'invoke'; id: number; name: string; input: unknown } | { type: 'keys'; keys: Record<string, string> } | { type: 'close' };

export type HostMessage =
  | { type: 'ready' }
  | { type: 'result'; id: number; result: Result<unknown> }
  | { type: 'event'; message: EventMessage }
  | { type: 'log'; message: string };
