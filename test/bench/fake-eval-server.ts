import { startFakeOpenAI } from '../helpers/fake-openai';

/**
 * The evaluation runner bench's model: a fake OpenAI-compatible server in a process of its own,
 * answering every call at once with a valid answer for the method's schema.
 */
const fake = await startFakeOpenAI();
fake.chat = () => ({ content: JSON.stringify({ long_answer: 'It depends: alpha, or beta.', short_answers: ['alpha', 'beta'] }), promptTokens: 50, completionTokens: 12 });
fake.requests = new Proxy([], { get: (target, key) => (key === 'push' ? () => 0 : Reflect.get(target, key)) });
process.stdout.write(`${fake.url}\n`);
