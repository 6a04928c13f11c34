import { databaseFileKey } from '../../db/file-key';
import { AppError } from '../../shared/api';

/**
 * Which of this process's writer jobs may run together. An import, a corpus import, a release and
 * a retrieval evaluation (which builds its corpus by an import) write everything in one
 * transaction that stays open across their awaits (so that a failure writes nothing); any other
 * write on this thread meanwhile would wait for that lock in SQLite's busy handler, holding up the
 * very thread that could release it, then fail after the busy timeout: a run's paid answer lost,
 * every request of the server stalled. So those jobs are `exclusive` and every other writer job
 * `shared`: shared jobs run together, an exclusive job runs alone, and each waits its turn in the
 * order asked (first come, first served, so neither kind starves the other).
 */
export type GateMode = 'shared' | 'exclusive';

interface Waiter {
  mode: GateMode;
  title: string;
  /** Called once, with the job already counted inside. */
  admitted: (release: () => void) => void;
}

export class WriteGate {
  /** The jobs inside, by entry. */
  private readonly inside = new Map<symbol, { mode: GateMode; title: string }>();
  private readonly queue: Waiter[] = [];

  /**
   * Waits for this job's turn (saying for whom through `waiting`, once), then returns the function
   * that lets the next ones in. A cancelled wait leaves the queue and throws `cancelled`.
   */
  async enter(mode: GateMode, title: string, signal: AbortSignal, waiting: (detail: string) => void): Promise<() => void> {
    if (signal.aborted) throw new AppError('cancelled', 'Cancelled');
    const now = this.tryEnter(mode, title);
    if (now) return now;
    const reason = this.reason(mode);
    const admitted = new Promise<() => void>((resolve, reject) => {
      const onAbort = () => {
        this.queue.splice(this.queue.indexOf(waiter), 1);
        this.wake();
        reject(new AppError('cancelled', 'Cancelled while waiting for another job to finish'));
      };
      const waiter: Waiter = {
        mode,
        title,
        admitted: (release) => {
          signal.removeEventListener('abort', onAbort);
          resolve(release);
        },
      };
      this.queue.push(waiter);
      signal.addEventListener('abort', onAbort, { once: true });
    });
    // Told once queued, so that a cancel from within `waiting` finds the job in the queue.
    waiting(reason);
    return admitted;
  }

  /** Enters at once if this job's turn is now, or returns null (for work that would rather refuse than wait). */
  tryEnter(mode: GateMode, title: string): (() => void) | null {
    return this.queue.length === 0 && this.fits(mode) ? this.admit(mode, title) : null;
  }

  /** The titles of the jobs inside and waiting, for a refusal that names them. */
  busyWith(): string[] {
    return [...this.inside.values(), ...this.queue].map((j) => j.title);
  }

  /** Who is ahead, and why this job waits for them (shown as the job's detail). */
  private reason(mode: GateMode): string {
    const ahead = this.busyWith().map((title) => `"${title}"`).join(', ');
    const why =
      mode === 'exclusive'
        ? 'this job writes everything in one transaction, which their writes would have to wait for'
        : 'an import or a release writes everything in one transaction, which this job would have to wait for';
    return `Waiting for ${ahead} to finish: ${why}. Cancel a job to let the next one start.`;
  }

  private fits(mode: GateMode): boolean {
    if (this.inside.size === 0) return true;
    if (mode === 'exclusive') return false;
    return [...this.inside.values()].every((j) => j.mode === 'shared');
  }

  private admit(mode: GateMode, title: string): () => void {
    const key = Symbol(title);
    this.inside.set(key, { mode, title });
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.inside.delete(key);
      this.wake();
    };
  }

  /** Lets in the waiters at the head of the queue, as many as fit (counted inside at once). */
  private wake(): void {
    while (this.queue.length > 0 && this.fits(this.queue[0]!.mode)) {
      const next = this.queue.shift()!;
      next.admitted(this.admit(next.mode, next.title));
    }
  }
}

/** One gate per database file in this process, whichever workbench asks, keyed as its locks are (each in-memory database is its own). */
const gates = new Map<string, WriteGate>();

export function writeGateFor(databasePath: string): WriteGate {
  if (databasePath === ':memory:') return new WriteGate();
  const key = databaseFileKey(databasePath);
  let gate = gates.get(key);
  if (!gate) {
    gate = new WriteGate();
    gates.set(key, gate);
  }
  return gate;
}
