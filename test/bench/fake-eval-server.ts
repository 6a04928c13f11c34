import { startFakeOpenAI } from '../helpers/fake-openai';

/**
 * The evaluation runner bench's model: a fake OpenAI-compatible server in a process of its own,
 * answering every call at once with a valid answer for the No Retrieval method's schema
 * (`plain_answer`: one key, "answer").
 */
const fake = await startFakeOpenAI();
fake.chat = () => ({ content: JSON.stringify({ answer: 'It depends: alpha, or beta.' }), promptTokens: 50, completionTokens: 12 });
fake.requests = new Proxy([], { get: (target, key) => (key === 'push' ? () => 0 : Reflect.get(target, key)) });
process.stdout.write(`${fake.url}\n`);
