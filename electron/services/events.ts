import { EventEmitter } from 'node:events';
import type { EventMessage, EventName, Events } from '../../shared/api';

/** Typed events from the services to whichever transports listen (IPC, SSE, the CLI). */
export class EventBus {
  private readonly emitter = new EventEmitter();

  constructor() {
    this.emitter.setMaxListeners(100);
  }

  emit<K extends EventName>(name: K, payload: Events[K]): void {
    this.emitter.emit('event', { name, payload } satisfies EventMessage<K>);
  }

  subscribe(listener: (message: EventMessage) => void): () => void {
    this.emitter.on('event', listener);
    return () => this.emitter.off('event', listener);
  }
}
