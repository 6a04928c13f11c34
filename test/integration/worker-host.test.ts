import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ServiceHost } from '../../electron/transport/worker-client';
import type { EventMessage, Job, Stats } from '../../shared/api';
import { MUSIQUE, ROOT, tempDir } from '../helpers/db';

const tmp = tempDir('awb-worker-');
afterAll(() => tmp.cleanup());

// The desktop app's transport without Electron: the services in a worker thread, called by name.
describe('the services worker of the desktop app', () => {
  it('seeds the demo data once, answers invocations and forwards job events', async () => {
    const host = new ServiceHost(
      path.join(ROOT, 'test', 'helpers', 'worker-entry.mjs'),
      { databasePath: tmp.file('desktop.db'), version: 'test', seedDemo: true },
      { env: { ...process.env, AWB_APP_ROOT: ROOT } },
    );
    try {
      await host.ready;
      const stats = await host.invoke('stats:get', {});
      expect(stats).toMatchObject({ ok: true, value: { datasets: 3, baseQuestions: 700, instances: 478 } });
      expect((stats.ok && (stats.value as Stats).instancesByType.unspecified)).toBe(478);

      const info = await host.invoke('app:info', {});
      expect(info).toMatchObject({ ok: true, value: { mode: 'desktop' } });
      expect(await host.invoke('instance:get', { id: -1 })).toMatchObject({ ok: false, error: { code: 'invalid_input' } });

      const events: EventMessage[] = [];
      const finished = new Promise<Job>((resolve) =>
        host.subscribe((message) => {
          events.push(message);
          if (message.name === 'job:done') resolve(message.payload as Job);
        }),
      );
      await host.invoke('dataset:import', { path: MUSIQUE, format: 'musique', dataset: 'again' });
      const job = await finished;
      expect(job.state).toBe('done');
      expect(events.some((e) => e.name === 'data:changed')).toBe(true);
    } finally {
      await host.close();
    }
  });
});
