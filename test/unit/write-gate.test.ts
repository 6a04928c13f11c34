import { describe, expect, it } from 'vitest';
import { createHandlers, Workbench } from '../../electron/services';
import { WriteGate, type GateMode } from '../../electron/services/write-gate';
import { dispatch } from '../../shared/api';

/** Asks the gate for a job, recording when it got in and what it was told while it waited. */
function ask(gate: WriteGate, mode: GateMode, title: string, log: string[], signal = new AbortController().signal) {
  const notes: string[] = [];
  const entered = gate.enter(mode, title, signal, (detail) => notes.push(detail)).then((leave) => {
    log.push(title);
    return leave;
  });
  return { entered, notes };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('the write gate', () => {
  it('lets shared jobs in together and an exclusive one alone, in the order asked', async () => {
    const gate = new WriteGate();
    const log: string[] = [];
    const a = ask(gate, 'shared', 'run a', log);
    const b = ask(gate, 'shared', 'run b', log);
    const imp = ask(gate, 'exclusive', 'import', log);
    // A shared job asked after the waiting import waits behind it: an import is never starved.
    const c = ask(gate, 'shared', 'run c', log);
    await turn();
    expect(log).toEqual(['run a', 'run b']);
    expect(a.notes).toEqual([]);
    expect(imp.notes).toEqual(['Waiting for "run a", "run b" to finish: this job writes everything in one transaction, which their writes would have to wait for. Cancel a job to let the next one start.']);
    expect(c.notes[0]).toMatch(/^Waiting for "run a", "run b", "import" to finish: an import or a release writes everything in one transaction/);
    (await a.entered)();
    await turn();
    expect(log).toEqual(['run a', 'run b']);
    const leaveB = await b.entered;
    leaveB();
    leaveB(); // A second call lets no one else in.
    await turn();
    expect(log).toEqual(['run a', 'run b', 'import']);
    const release = ask(gate, 'exclusive', 'release', log);
    await turn();
    expect(log).toEqual(['run a', 'run b', 'import']);
    (await imp.entered)();
    await turn();
    // The shared job asked first goes first; the release waits for it.
    expect(log).toEqual(['run a', 'run b', 'import', 'run c']);
    (await c.entered)();
    await turn();
    expect(log).toEqual(['run a', 'run b', 'import', 'run c', 'release']);
    (await release.entered)();
    const d = ask(gate, 'exclusive', 'import 2', log);
    await turn();
    expect(d.notes).toEqual([]);
    expect(log.at(-1)).toBe('import 2');
  });

  it('takes a job cancelled while it waits out of the queue, and lets the next one in', async () => {
    const gate = new WriteGate();
    const log: string[] = [];
    const run = ask(gate, 'shared', 'run', log);
    const controller = new AbortController();
    const imp = ask(gate, 'exclusive', 'import', log, controller.signal);
    const later = ask(gate, 'shared', 'run 2', log);
    await turn();
    expect(log).toEqual(['run']);
    controller.abort();
    await expect(imp.entered).rejects.toMatchObject({ code: 'cancelled' });
    await turn();
    // With the import gone, the next shared job joins the one inside.
    expect(log).toEqual(['run', 'run 2']);
    (await run.entered)();
    (await later.entered)();
    const aborted = new AbortController();
    aborted.abort();
    await expect(gate.enter('shared', 'late', aborted.signal, () => undefined)).rejects.toMatchObject({ code: 'cancelled' });
  });
});

describe('loading the demo data', () => {
  it('refuses while another job writes, naming it, since it imports on the services own connection', async () => {
    const workbench = new Workbench({ databasePath: ':memory:', mode: 'browser', version: 'test' });
    const handlers = createHandlers(workbench);
    try {
      const leave = workbench.writeGate.tryEnter('shared', 'Ask first · squad');
      expect(leave).not.toBeNull();
      const refused = await dispatch(handlers, 'dataset:seed-demo', {});
      expect(refused).toMatchObject({ ok: false, error: { code: 'conflict', message: 'Other jobs are writing ("Ask first · squad"): load the demo data when they finish.' } });
      leave!();
      // Its turn taken, a job asked for meanwhile waits for it.
      const own = workbench.writeGate.tryEnter('exclusive', 'Load the demo data');
      expect(workbench.writeGate.tryEnter('shared', 'run')).toBeNull();
      own!();
    } finally {
      workbench.close();
    }
  });
});
