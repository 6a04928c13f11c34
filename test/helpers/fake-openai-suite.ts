import { afterAll, beforeAll, beforeEach } from 'vitest';
import { startFakeOpenAI, type FakeOpenAI } from './fake-openai';

/**
 * A fake server for a whole test file: started before its tests, closed after them (with `cleanup`
 * for what else the file made), reset before each test by `reset`. Returns the running server.
 */
export function fakeOpenAIForFile(reset: (fake: FakeOpenAI) => void, cleanup: () => void = () => undefined): () => FakeOpenAI {
  let fake: FakeOpenAI | null = null;
  beforeAll(async () => {
    fake = await startFakeOpenAI();
  });
  afterAll(async () => {
    await fake?.close();
    cleanup();
  });
  beforeEach(() => {
    fake!.requests.length = 0;
    reset(fake!);
  });
  return () => fake!;
}
