import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { createHandlers, Workbench } from '../../electron/services';
import { EventBus } from '../../electron/services/events';
import { JobRunner } from '../../electron/services/jobs';
import { writeGateFor, WriteGate, type GateMode } from '../../electron/services/write-gate';
import { databaseFileKey } from '../../db/file-key';
import { AppError, dispatch } from '../../shared/api';
import { tempDir } from '../helpers/db';

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
    // Cancelled from the very callback that says it waits: it leaves the queue all the same.
    const holder = gate.tryEnter('exclusive', 'import')!;
    const hasty = new AbortController();
    await expect(gate.enter('shared', 'hasty', hasty.signal, () => hasty.abort())).rejects.toMatchObject({ code: 'cancelled' });
    expect(gate.busyWith()).toEqual(['import']);
    holder();
  });
});

describe('the workbench and the gate', () => {
  it('clears the detail of a job cancelled while it waited, and keeps one gate per database file', async () => {
    const temp = tempDir('awb-gate-');
    const one = new Workbench({ databasePath: temp.file('g.db'), mode: 'browser', version: 'test' });
    const two = new Workbench({ databasePath: temp.file('g.db'), mode: 'browser', version: 'test' });
    try {
      expect(two.writeGate).toBe(one.writeGate);
      const leave = one.writeGate.tryEnter('exclusive', 'Import q.jsonl')!;
      const { jobId } = two.writerJob('pipeline', 'Pipeline run', 'items', async () => ({}) as never);
      await vi.waitFor(() => expect(two.jobs.get(jobId).detail).toMatch(/^Waiting for "Import q.jsonl" to finish/));
      two.jobs.cancel(jobId);
      expect(await two.jobs.wait(jobId)).toMatchObject({ state: 'cancelled', detail: null });
      leave();
    } finally {
      one.close();
      two.close();
      temp.cleanup();
    }
  });

  it('keeps one gate for one file however it is named, and one for each in-memory database', () => {
    const temp = tempDir('awb-gate-key-');
    try {
      fs.writeFileSync(temp.file('real.db'), '');
      fs.symlinkSync(temp.file('real.db'), temp.file('link.db'));
      expect(writeGateFor(temp.file('link.db'))).toBe(writeGateFor(temp.file('real.db')));
      expect(writeGateFor(`${path.relative(process.cwd(), temp.file('real.db'))}\n`)).toBe(writeGateFor(temp.file('real.db')));
      expect(databaseFileKey(temp.file('link.db'))).toBe(fs.realpathSync(temp.file('real.db')));
      // A file removed since: its absolute path.
      expect(databaseFileKey(temp.file('gone.db'))).toBe(temp.file('gone.db'));
      expect(writeGateFor(':memory:')).not.toBe(writeGateFor(':memory:'));
    } finally {
      temp.cleanup();
    }
  });

  it('ends failed, not cancelled, a job that fails for a reason of its own while it is cancelled', async () => {
    const jobs = new JobRunner(new EventBus());
    const lost = jobs.start('label', 'Labelling', 'items', async ({ signal }) => {
      await new Promise((resolve) => signal.addEventListener('abort', resolve));
      throw new AppError('internal', 'Run 3 failed: Cancelled; The grouped writes were lost (database or disk is full)');
    });
    const stopped = jobs.start('label', 'Labelling', 'items', async ({ signal }) => {
      await new Promise((resolve) => signal.addEventListener('abort', resolve));
      throw new Error('The operation was aborted');
    });
    await new Promise((resolve) => setImmediate(resolve));
    jobs.cancel(lost.id);
    jobs.cancel(stopped.id);
    expect(await jobs.wait(lost.id)).toMatchObject({ state: 'failed', error: { code: 'internal', message: expect.stringMatching(/grouped writes were lost/) } });
    expect(await jobs.wait(stopped.id)).toMatchObject({ state: 'cancelled' });
  });

  it('refuses the demo data while another job writes, naming it, and holds its turn while it imports', async () => {
    const workbench = new Workbench({ databasePath: ':memory:', mode: 'browser', version: 'test' });
    const handlers = createHandlers(workbench);
    try {
      const leave = workbench.writeGate.tryEnter('shared', 'Ask first · squad');
      expect(leave).not.toBeNull();
      const refused = await dispatch(handlers, 'dataset:seed-demo', {});
      expect(refused).toMatchObject({ ok: false, error: { code: 'conflict', message: 'Other jobs are writing ("Ask first · squad"): load the demo data when they finish.' } });
      leave!();
      const seeding = dispatch(handlers, 'dataset:seed-demo', {});
      expect(workbench.writeGate.busyWith()).toEqual(['Load the demo data']);
      expect(workbench.writeGate.tryEnter('shared', 'run')).toBeNull();
      expect(await seeding).toMatchObject({ ok: true });
      expect(workbench.writeGate.busyWith()).toEqual([]);
    } finally {
      workbench.close();
    }
  });
});
