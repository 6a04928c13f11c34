import type { EventMessage, EventName, Events } from '../../shared/api';

type Listener = (message: EventMessage) => void;

/**
 * Typed events from the services to whichever transports listen (IPC, SSE, the CLI). A listener
 * that throws (a closed connection, a broken progress bar) is reported and passed over: the
 * others still hear the event, and the work that emitted it is not failed by it.
 */
export class EventBus {
  private readonly listeners = new Set<Listener>();

  constructor(private readonly report: (error: unknown) => void = (error) => console.error('awb: an event listener failed:', error)) {}

  emit<K extends EventName>(name: K, payload: Events[K]): void {
    const message = { name, payload } satisfies EventMessage<K>;
    for (const listener of [...this.listeners]) {
      try {
        listener(message);
      } catch (error) {
        this.report(error);
      }
    }
  }

  subscribe(listener: Listener): () => void {
    // Each subscription is its own, so one function subscribed twice is called twice.
    const own: Listener = (message) => listener(message);
    this.listeners.add(own);
    return () => this.listeners.delete(own);
  }
}
