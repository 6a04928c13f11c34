import { startFakeOpenAI } from '../helpers/fake-openai';
import { MARCH_PROFILE } from '../../electron/dev/fake-profile';
import { pipelineBrain } from '../helpers/fake-pipeline';

/**
 * The bench's model: a fake OpenAI-compatible server in a process of its own (so its work is not
 * counted as the pipeline's), answering at once. One question in ten is ambiguous.
 */
const fake = await startFakeOpenAI();
// `march`: answers drawn from MARCH's funnel (the economy suite); otherwise one question in ten is ambiguous.
fake.chat = process.argv[2] === 'march' ? pipelineBrain({ script: { profile: MARCH_PROFILE } }) : pipelineBrain({ ambiguous: (q) => q.length % 10 === 0 });
// The bench reads the URL from the first line; recorded requests would only grow memory here.
fake.requests = new Proxy([], { get: (target, key) => (key === 'push' ? () => 0 : Reflect.get(target, key)) });
process.stdout.write(`${fake.url}\n`);
