import { contentTerms } from '../../shared/retrieval/terms';

/** Reading a prompt the way the fake model does: its numbered passages, the answers they hold, the expression a question turns on. */

/** The numbered passages of a prompt (`[1] Title: text`), in order. */
export function promptPassages(text: string): string[] {
  const out: string[] = [];
  for (const match of text.matchAll(/^\[(\d+)\] ([\s\S]*?)(?=\n\n\[\d+\] |\n\nKeys?: |$(?![\s\S]))/gm)) out[Number(match[1]) - 1] = match[2]!.trim();
  return out;
}

export const words = (text: string) => new Set(contentTerms(text));

/**
 * Answer candidates in a passage, best first: names (runs of capitalised words, a leading "The"
 * left out) and numbers that the question does not already contain.
 */
export function candidates(passage: string, question: string): string[] {
  const asked = words(question);
  const body = passage.replace(/^[^:\n]{1,120}: /, ''); // the "Title: " the prompt puts first
  const found: string[] = [];
  for (const match of body.matchAll(/\b(?:[A-Z][\p{L}'’-]*|\d[\d,.]*)(?:\s+(?:of\s+|de\s+|the\s+)?(?:[A-Z][\p{L}'’-]*|\d[\d,.]*))*/gu)) {
    const phrase = match[0].replace(/^The\s+/, '').replace(/[.,]+$/, '');
    if (!phrase || /^(The|A|An|In|On|It|He|She|They|This|That)$/.test(phrase)) continue;
    const terms = contentTerms(phrase);
    if (terms.length === 0 || terms.every((t) => asked.has(t))) continue;
    if (!found.includes(phrase)) found.push(phrase);
  }
  if (found.length) return found;
  // Text without names or numbers (lower-case prose): pairs of adjacent words the question lacks.
  const plain = body.toLowerCase().match(/[\p{L}\d'’-]+/gu) ?? [];
  for (let i = 0; i + 1 < plain.length && found.length < 5; i += 2) {
    const pair = `${plain[i]} ${plain[i + 1]}`;
    const terms = contentTerms(pair);
    if (terms.length === 2 && !terms.some((t) => asked.has(t)) && !found.includes(pair)) found.push(pair);
  }
  return found;
}

export const ORDINALS = ['first', 'second', 'third', 'fourth', 'fifth'];

/** The expression a default clarification interprets: the question's longest name, else its last content word. */
export function ambiguousExpression(question: string): string {
  const names = [...question.matchAll(/\b[A-Z][\p{L}'’-]*(?:\s+[A-Z][\p{L}'’-]*)*/gu)].map((m) => m[0]).filter((n) => !/^(Who|What|Which|When|Where|Why|How|In|The)$/.test(n));
  return names.sort((a, b) => b.length - a.length)[0] ?? contentTerms(question).at(-1) ?? 'it';
}

