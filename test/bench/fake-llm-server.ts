import { startFakeOpenAI } from '../helpers/fake-openai';
import { pipelineBrain } from '../helpers/fake-pipeline';

/**
 * The bench's model: a fake OpenAI-compatible server in a process of its own (so its work is not
 * counted as the pipeline's), answering at once. One question in ten is ambiguous.
 */
const fake = await startFakeOpenAI();
fake.chat = pipelineBrain({ ambiguous: (q) => q.length % 10 === 0 });
// The bench reads the URL from the first line; recorded requests would only grow memory here.
fake.requests = new Proxy([], { get: (target, key) => (key === 'push' ? () => 0 : Reflect.get(target, key)) });
process.stdout.write(`${fake.url}\n`);
